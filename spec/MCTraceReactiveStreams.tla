----------------------- MODULE MCTraceReactiveStreams -----------------------
(***************************************************************************)
(* The kill model of TraceReactiveStreams.tla (spec/models.toml,           *)
(* "trace_fixtures").  TraceData.tla here is the committed batch that      *)
(* spec/trace_kill.py writes from fixtures of tests/traces/: Expect[t] is  *)
(* TRUE for a trace the module must accept, FALSE for one it must reject.  *)
(* A mutation (Mut_*, swapped in by the kill table) that accepts a trace   *)
(* it must reject breaks MustRejectInv; one that cannot take a trace it    *)
(* must accept breaks MustAcceptInv.                                       *)
(***************************************************************************)
EXTENDS TraceReactiveStreams

MCSpec == TraceInit /\ [][TraceNext]_vars

\* The trace was taken to its end and nothing is due at rest.
Accepted == Finished /\ (Quiescent[t] => AtRest)

MustRejectInv == ~Expect[t] => ~Accepted

MustAcceptInv ==
    Expect[t] => IF Finished THEN Accepted ELSE ENABLED TraceStep

-----------------------------------------------------------------------------
(* Deliberate defects, one rule each.                                      *)

\* Rule 2.13 forgotten at rest: an on* method raised and nobody cancelled.
Mut_AtRestForgetsFault ==
    \A s \in TraceSubs :
        /\ pub[s] # "subscribed"
        /\ InFlight(s) = 0
        /\ \A th \in TraceThreads : stack[s][th] = <<>>
        /\ pub[s] \notin RS!Done => up[s] = <<>>
        /\ RS!Invalid(s) => term[s] \in RS!ErrorCauses \/ pub[s] = "cancelled"

\* Rule 3.9's answer forgotten at rest: request(0) received, no onError ever.
Mut_AtRestForgetsInvalid ==
    \A s \in TraceSubs :
        /\ pub[s] # "subscribed"
        /\ InFlight(s) = 0
        /\ \A th \in TraceThreads : stack[s][th] = <<>>
        /\ pub[s] \notin RS!Done => up[s] = <<>>
        /\ faulted[s] => RS!Cancelled(s)

\* Rule 3.16 forgotten: request() may raise.
Mut_EndRequestRaises(s, th, raised) ==
    /\ RS!TopIn(s, th, {"request"})
    /\ stack' = RS!PopOn(s, th)
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   up, delivered, cancels, calls, faulted, nsent, term>>

\* Rule 3.15 forgotten: cancel() may raise.
Mut_EndCancelRaises(s, th, raised) ==
    /\ RS!TopIn(s, th, {"cancel"})
    /\ stack' = RS!PopOn(s, th)
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   up, delivered, cancels, calls, faulted, nsent, term>>

\* Stricter than rule 3.9's text: no onNext once request(0) was received,
\* although the rule only asks for the onError to come.
Mut_SendOnNextSilentAfterInvalid(s) ==
    /\ pub[s] = "active"
    /\ emitted[s] < TraceElements
    /\ demand[s] > 0
    /\ ~RS!Invalid(s)
    /\ awake[s]
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onNext")
    /\ emitted' = [emitted EXCEPT ![s] = @ + 1]
    /\ Commit(s)
    /\ demand' = [demand EXCEPT ![s] = RS!Take(@)]
    /\ awake' = [awake EXCEPT ![s] = TRUE]
    /\ UNCHANGED <<pub, requested, invalidAt, asked, ref, cutoff, up, delivered, stack,
                   cancels, calls, faulted, term>>

=============================================================================
