------------------------- MODULE MCReactiveStreams -------------------------
(***************************************************************************)
(* Model checking of ReactiveStreams.tla: what TLC needs beyond the spec.  *)
(*                                                                         *)
(* MCSpec adds one stuttering step where every Subscription is quiet, so   *)
(* TLC's deadlock check flags only a state where work is due and nothing   *)
(* can happen (a committed signal nobody can begin, a call that cannot     *)
(* return), not a stream that has simply finished or run out of bounds.    *)
(*                                                                         *)
(* Mutations: each Mut_* operator is a copy of one normative operator with *)
(* one deliberate defect.  A mutation model replaces the original in the   *)
(* .cfg (`SendOnNext <- Mut_SendOnNextSkipsDemand`) and keeps every        *)
(* invariant and property; spec/models.toml says which model must catch    *)
(* it.  Multicast.tla uses the same convention (MCMulticast.tla).          *)
(***************************************************************************)
EXTENDS ReactiveStreams, TLC

\* A finished (or bound-exhausted) run rests here instead of deadlocking.
Resting == (\A s \in Subs : Quiet(s)) /\ UNCHANGED vars
MCNext  == Next \/ Resting
MCSpec  == Init /\ [][MCNext]_vars /\ Fairness

\* The trace coverage model (spec/trace_coverage.py) maps recorded traces onto
\* the state graph; traces do not record the drain loop's sleep.
SleepUntraced(s) == FALSE

-----------------------------------------------------------------------------
(* Mutations of the Publisher's signals.                                   *)

\* 1.1: onNext without demand (an extra onNext).
Mut_SendOnNextSkipsDemand(s) ==
    /\ pub[s] = "active" /\ emitted[s] < Elements /\ ~Invalid(s) /\ awake[s]
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onNext")
    /\ emitted' = [emitted EXCEPT ![s] = @ + 1]
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onNext", emitted[s] + 1, "none"))]
    /\ demand' = [demand EXCEPT ![s] = IF @ > 0 THEN Take(@) ELSE 0]
    /\ awake' = awake
    /\ UNCHANGED <<pub, requested, invalidAt, asked, ref, cutoff, up, delivered, stack,
                   cancels, calls, faulted, callRaised>>

\* 1.1, 3.17: onNext without demand, counted: the demand goes below zero.
Mut_SendOnNextBelowZero(s) ==
    /\ pub[s] = "active" /\ emitted[s] < Elements /\ ~Invalid(s) /\ awake[s]
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onNext")
    /\ emitted' = [emitted EXCEPT ![s] = @ + 1]
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onNext", emitted[s] + 1, "none"))]
    /\ demand' = [demand EXCEPT ![s] = Take(@)]
    /\ UNCHANGED <<pub, requested, invalidAt, asked, awake, ref, cutoff, up, delivered, stack,
                   cancels, calls, faulted, callRaised>>

\* SendOnNext with its state guard replaced by `ok` (and optionally ignoring 3.9).
OnNextWhen(s, ok, checkInvalid, wake) ==
    /\ ok /\ emitted[s] < Elements /\ demand[s] > 0
    /\ checkInvalid => ~Invalid(s)
    /\ awake[s]
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onNext")
    /\ emitted' = [emitted EXCEPT ![s] = @ + 1]
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onNext", emitted[s] + 1, "none"))]
    /\ demand' = [demand EXCEPT ![s] = Take(@)]
    /\ awake' = [awake EXCEPT ![s] = wake]
    /\ UNCHANGED <<pub, requested, invalidAt, asked, ref, cutoff, up, delivered, stack,
                   cancels, calls, faulted, callRaised>>

\* 3.9: onNext although an invalid request was received.
Mut_SendOnNextIgnoresInvalid(s) == OnNextWhen(s, pub[s] = "active", FALSE, TRUE)
\* 1.8, 3.12: onNext after the cancel was received.
Mut_SendOnNextAfterCancel(s) == OnNextWhen(s, pub[s] \in {"active", "cancelled"}, TRUE, TRUE)
\* 1.7: onNext after onComplete.
Mut_SendOnNextAfterComplete(s) == OnNextWhen(s, pub[s] \in {"active", "completed"}, TRUE, TRUE)
\* 3.8: the drain loop goes to sleep after one onNext although demand is left.
Mut_SendOnNextMissedWakeUp(s) == OnNextWhen(s, pub[s] = "active", TRUE, FALSE)

\* SendOnComplete with its state guard replaced.
CompleteWhen(s, ok, checkInvalid, exhausted) ==
    /\ ok
    /\ checkInvalid => ~Invalid(s)
    /\ exhausted
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onComplete")
    /\ Release(s, "completed")
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onComplete", 0, "none"))]
    /\ UNCHANGED <<emitted, demand, requested, invalidAt, asked, awake, cutoff, delivered,
                   stack, cancels, calls, faulted, callRaised>>

Exhausted(s) == emitted[s] = Elements \/ EarlyEnd
\* 1.8, 3.12: onComplete after the cancel was received.
Mut_SendOnCompleteAfterCancel(s) ==
    CompleteWhen(s, pub[s] \in {"active", "cancelled"}, TRUE, Exhausted(s))
\* 1.7: onComplete twice.
Mut_SendOnCompleteTwice(s) ==
    CompleteWhen(s, pub[s] \in {"active", "completed"}, TRUE, Exhausted(s))
\* 3.9: onComplete although an invalid request was received.
Mut_SendOnCompleteIgnoresInvalid(s) ==
    CompleteWhen(s, pub[s] = "active", FALSE, Exhausted(s))
\* 1.5: an exhausted source never completes.
Mut_SendOnCompleteForgotten(s) ==
    CompleteWhen(s, pub[s] = "active", TRUE, EarlyEnd /\ emitted[s] < Elements)

\* SendOnError with its state guard replaced, and the error it carries.
ErrorWhen(s, cause, ok, allowed, err) ==
    /\ ok /\ allowed
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onError")
    /\ Release(s, "failed")
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onError", 0, err))]
    /\ UNCHANGED <<emitted, demand, requested, invalidAt, asked, awake, cutoff, delivered,
                   stack, cancels, calls, faulted, callRaised>>

\* 1.8, 3.12: onError after the cancel was received.
Mut_SendOnErrorAfterCancel(s, cause) ==
    ErrorWhen(s, cause, pub[s] \in {"active", "cancelled"}, ErrorAllowed(s, cause), cause)
\* 1.9: subscribe fails with onError before onSubscribe.
Mut_SendOnErrorBeforeOnSubscribe(s, cause) ==
    ErrorWhen(s, cause, pub[s] \in {"subscribed", "active"}, ErrorAllowed(s, cause), cause)
\* 2.13 / TypeOK: the source failure is signalled as on_error(None).
Mut_SendOnErrorNull(s, cause) ==
    ErrorWhen(s, cause, pub[s] = "active", ErrorAllowed(s, cause),
              IF cause = "source" THEN "null" ELSE cause)
\* 3.9: a source error may replace the IllegalArgument answer.
Mut_ErrorAllowedSourceAfterInvalid(s, cause) ==
    CASE cause = "invalid" -> Invalid(s)
      [] cause = "source"  -> SourceFails
      [] OTHER             -> FALSE
\* 3.9: request(n <= 0) stops the stream without onError.
Mut_ErrorAllowedNoInvalidAnswer(s, cause) ==
    cause = "source" /\ SourceFails /\ ~Invalid(s)

\* 2.12: onSubscribe committed again.
Mut_SendOnSubscribeTwice(s) ==
    /\ \/ pub[s] = "subscribed"
       \/ pub[s] = "active" /\ Count(sent[s], "onSubscribe") = 1
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onSubscribe")
    /\ pub' = [pub EXCEPT ![s] = "active"]
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onSubscribe", 0, "none"))]
    /\ UNCHANGED <<emitted, demand, requested, invalidAt, asked, awake, ref, cutoff, up,
                   delivered, stack, cancels, calls, faulted, callRaised>>
\* 1.9: subscribe never answered.
Mut_SendOnSubscribeNever(s) == FALSE


-----------------------------------------------------------------------------
(* Mutations of the Publisher's demand and message handling.               *)

\* 3.17: demand wraps like a 64-bit long instead of saturating.
Mut_SatAddWraps(d, n) ==
    IF n > MaxDemand - d THEN (d - MaxDemand - 1) + (n - MaxDemand - 1) ELSE d + n
\* 3.17: demand is never capped (a Python int does not overflow, so the cap is
\* forgotten): it grows past 2^63-1 instead of staying "effectively unbounded".
Mut_SatAddUncapped(d, n) == IF d = MaxDemand THEN MaxDemand ELSE d + n
\* 3.17: saturation one short of the maximum.
Mut_SatAddEarly(d, n) == IF d = MaxDemand \/ n >= MaxDemand - d - 1 THEN MaxDemand ELSE d + n
\* 3.8: a request arriving while demand is outstanding is lost (racy read-modify-write).
Mut_SatAddLosesRace(d, n) ==
    CASE d > 0 /\ d < MaxDemand -> d
      [] d = MaxDemand \/ n >= MaxDemand - d -> MaxDemand
      [] OTHER -> d + n
\* 3.8: delivering does not reduce the demand.
Mut_TakeNothing(d) == d

\* RecvRequest with the validity test replaced by `Valid(n)`, or ignoring bad n.
RecvRequestWith(s, Valid(_), noteInvalid) ==
    /\ up[s] # <<>>
    /\ Head(up[s]).type = "request"
    /\ LET n == Head(up[s]).n IN
       /\ up' = [up EXCEPT ![s] = Tail(@)]
       /\ IF ~Valid(n)
          THEN /\ invalidAt' = [invalidAt EXCEPT ![s] =
                                   IF @ < 0 /\ noteInvalid THEN Len(sent[s]) ELSE @]
               /\ UNCHANGED <<demand, requested, awake>>
          ELSE /\ requested' = [requested EXCEPT ![s] = AddRequested(s, n)]
               /\ demand' = [demand EXCEPT ![s] = SatAdd(@, n)]
               /\ awake' = [awake EXCEPT ![s] = TRUE]
               /\ UNCHANGED invalidAt
    /\ UNCHANGED <<pub, emitted, asked, ref, cutoff, sent, delivered, stack, cancels,
                   calls, faulted, callRaised>>
\* 3.9: request(0) taken as valid (the test is n < 0 instead of n <= 0).
Mut_RecvRequestZeroValid(s) == RecvRequestWith(s, LAMBDA n : n >= 0, TRUE)
\* 3.9: request(n <= 0) silently ignored.
Mut_RecvRequestIgnoresInvalid(s) == RecvRequestWith(s, LAMBDA n : n > 0, FALSE)

\* 3.8: a lost wake-up: the request adds demand but does not wake the sleeping
\* drain loop (the wake-up went out while the loop was still deciding to sleep).
Mut_RecvRequestNoWake(s) ==
    /\ up[s] # <<>>
    /\ Head(up[s]).type = "request"
    /\ LET n == Head(up[s]).n IN
       /\ up' = [up EXCEPT ![s] = Tail(@)]
       /\ IF n <= 0
          THEN /\ invalidAt' = [invalidAt EXCEPT ![s] = IF @ < 0 THEN Len(sent[s]) ELSE @]
               /\ UNCHANGED <<demand, requested>>
          ELSE /\ requested' = [requested EXCEPT ![s] = AddRequested(s, n)]
               /\ demand' = [demand EXCEPT ![s] = SatAdd(@, n)]
               /\ UNCHANGED invalidAt
    /\ UNCHANGED <<pub, emitted, asked, awake, ref, cutoff, sent, delivered, stack, cancels,
                   calls, faulted, callRaised>>
\* 3.8: the drain loop never sleeps (busy-waits): the lost-wake-up property
\* would have nothing to check (a witness catches it).
Mut_SleepNever(s) == FALSE

\* 1.8: the cancel message is never processed.
Mut_RecvCancelNever(s) == FALSE
\* 1.8: the cancel is received and the reference dropped, but the Publisher
\* does not stop (it stays active and may go on signalling).
Mut_RecvCancelNoStop(s) ==
    /\ up[s] # <<>>
    /\ Head(up[s]).type = "cancel"
    /\ ref' = [ref EXCEPT ![s] = FALSE]
    /\ up' = [up EXCEPT ![s] = <<>>]
    /\ UNCHANGED <<pub, cutoff, emitted, demand, requested, invalidAt, asked, awake, sent,
                   delivered, stack, cancels, calls, faulted, callRaised>>
\* 3.13: the Subscriber reference is kept after cancel.
Mut_RecvCancelKeepsReference(s) ==
    /\ up[s] # <<>>
    /\ Head(up[s]).type = "cancel"
    /\ pub' = [pub EXCEPT ![s] = "cancelled"]
    /\ up' = [up EXCEPT ![s] = <<>>]
    /\ cutoff' = [cutoff EXCEPT ![s] = Len(sent[s])]
    /\ UNCHANGED <<ref, emitted, demand, requested, invalidAt, asked, awake, sent, delivered,
                   stack, cancels, calls, faulted, callRaised>>

-----------------------------------------------------------------------------
(* Mutations of calls and threads.                                         *)

\* 1.3: a signal may begin while another thread runs a signal of s.
Mut_CanBeginConcurrently(s, th, sig) ==
    /\ stack[s][th] = <<>> \/ TopIn(s, th, {"request"})
    /\ sig = "onNext" => Frames(s, th, {"onNext"}) < Depth
\* 3.3: onNext nests inside request inside onNext without bound.
Mut_CanBeginUnbounded(s, th, sig) ==
    /\ stack[s][th] = <<>> \/ TopIn(s, th, {"request"})
    /\ \A o \in Threads \ {th} : ~InSignal(s, o)
\* 2.7: request()/cancel() called from two threads at once.
Mut_CanCallConcurrently(s, th) == stack[s][th] = <<>> \/ TopIn(s, th, SigNames)

\* 3.6: a request after cancel is still sent.
Mut_RequestAfterCancel(s, th, n) ==
    /\ delivered[s] >= 1 /\ calls[s] < MaxCalls /\ CanCall(s, th) /\ SyncQuiet(s)
    /\ calls' = [calls EXCEPT ![s] = @ + 1]
    /\ stack' = Push(s, th, "request")
    /\ IF faulted[s] \/ pub[s] \in Done
       THEN UNCHANGED <<up, asked>>
       ELSE /\ UpRoom(s)
            /\ up' = [up EXCEPT ![s] = Append(@, [type |-> "request", n |-> n])]
            /\ asked' = [asked EXCEPT ![s] = @ \/ n <= 0]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, awake, ref, cutoff,
                   sent, delivered, cancels, faulted, callRaised>>

\* 3.16: request() never returns (the caller hangs).
Mut_EndRequestNever(s, th, raised) == FALSE

\* 3.16, 2.13: request() raises once an on* method raised (2.13's "the caller
\* MUST raise this error condition" read as an exception out of request()).
Mut_EndRequestRaisesFault(s, th, raised) ==
    /\ TopIn(s, th, {"request"})
    /\ raised => faulted[s]
    /\ stack' = PopOn(s, th)
    /\ callRaised' = [callRaised EXCEPT ![s] = @ \/ raised]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   up, sent, delivered, cancels, calls, faulted>>

\* 2.13: a request after an on* method raised still reaches the Publisher.
Mut_RequestAfterRaise(s, th, n) ==
    /\ delivered[s] >= 1 /\ calls[s] < MaxCalls /\ CanCall(s, th) /\ SyncQuiet(s)
    /\ calls' = [calls EXCEPT ![s] = @ + 1]
    /\ stack' = Push(s, th, "request")
    /\ IF Cancelled(s) \/ pub[s] \in Done
       THEN UNCHANGED <<up, asked>>
       ELSE /\ UpRoom(s)
            /\ up' = [up EXCEPT ![s] = Append(@, [type |-> "request", n |-> n])]
            /\ asked' = [asked EXCEPT ![s] = @ \/ n <= 0]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, awake, ref, cutoff,
                   sent, delivered, cancels, faulted, callRaised>>

\* 3.16: nothing makes a request() made from the Subscriber's idle thread
\* return (no fairness on the end of a request() alone on its stack; one made
\* inside an on* method still returns, so the method ends, and signals still
\* begin inside the open request()).
Mut_FairnessNoReturn ==
    \A s \in Subs :
        /\ WF_vars(RecvRequest(s))
        /\ WF_vars(RecvCancel(s))
        /\ WF_vars(SendOnSubscribe(s))
        /\ WF_vars(SendOnNext(s))
        /\ WF_vars(SendOnComplete(s) /\ emitted[s] = Elements)
        /\ WF_vars(SendOnError(s, "invalid"))
        /\ WF_vars(\E th \in Threads, sig \in SigNames : Begin(s, th, sig))
        /\ WF_vars(\E th \in Threads, sig \in SigNames, raised \in BOOLEAN :
                      End(s, th, sig, raised))
        /\ WF_vars(\E th \in Threads, raised \in BOOLEAN :
                      EndCancel(s, th, raised)
                      \/ (Len(stack[s][th]) > 1 /\ EndRequest(s, th, raised)))
        /\ WF_vars(faulted[s] /\ ~Cancelled(s) /\ \E th \in Threads : Cancel(s, th))

\* 2.13: the implementation does not cancel after an on* method raised.
Mut_FairnessNoCancelAfterRaise ==
    \A s \in Subs :
        /\ WF_vars(RecvRequest(s))
        /\ WF_vars(RecvCancel(s))
        /\ WF_vars(SendOnSubscribe(s))
        /\ WF_vars(SendOnNext(s))
        /\ WF_vars(SendOnComplete(s) /\ emitted[s] = Elements)
        /\ WF_vars(SendOnError(s, "invalid"))
        /\ WF_vars(\E th \in Threads, sig \in SigNames : Begin(s, th, sig))
        /\ WF_vars(\E th \in Threads, sig \in SigNames, raised \in BOOLEAN :
                      End(s, th, sig, raised))
        /\ WF_vars(\E th \in Threads, raised \in BOOLEAN :
                      EndRequest(s, th, raised) \/ EndCancel(s, th, raised))


-----------------------------------------------------------------------------
(* Readings of the rules from an independent review (issue 29).            *)

\* 1.3: a signal may begin directly inside another signal on its thread,
\* with no request()/cancel() between them.
Mut_CanBeginNested(s, th, sig) ==
    /\ stack[s][th] = <<>> \/ TopIn(s, th, {"request"} \cup SigNames)
    /\ \A o \in Threads \ {th} : ~InSignal(s, o)
    /\ sig = "onNext" => Frames(s, th, {"onNext"}) < Depth
\* 3.10: a signal may begin directly inside cancel() (only request() may
\* signal synchronously).
Mut_CanBeginInsideCancel(s, th, sig) ==
    /\ stack[s][th] = <<>> \/ TopIn(s, th, CallNames)
    /\ \A o \in Threads \ {th} : ~InSignal(s, o)
    /\ sig = "onNext" => Frames(s, th, {"onNext"}) < Depth
\* 2.7: request()/cancel() may begin directly inside an open request()/cancel().
Mut_CanCallNested(s, th) ==
    /\ stack[s][th] = <<>> \/ TopIn(s, th, SigNames \cup CallNames)
    /\ \A o \in Threads \ {th} : ~InCall(s, o)

\* End with the fault it records replaced by `fault`.
EndWith(s, th, sig, raised, fault) ==
    /\ TopIn(s, th, {sig})
    /\ raised => Raises
    /\ stack' = PopOn(s, th)
    /\ faulted' = [faulted EXCEPT ![s] = @ \/ fault]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   up, sent, delivered, cancels, calls, callRaised>>
\* 2.13: a raising on* method is not recorded as a fault, so no cancel is owed.
Mut_EndNoFault(s, th, sig, raised) == EndWith(s, th, sig, raised, FALSE)
\* 2.13: only a raising onNext obliges the cancel.
Mut_EndFaultOnNextOnly(s, th, sig, raised) ==
    EndWith(s, th, sig, raised, raised /\ sig = "onNext")
\* 2.13: the cancel owed after a raise may be made twice.
Mut_CanFaultCancelTwice(s, th) ==
    /\ faulted[s]
    /\ TopIn(s, th, {"request"})
    /\ \A o \in Threads \ {th} : ~InCall(s, o)

\* Cancel with the test "this cancel() sends a message" replaced by `sends`.
CancelSending(s, th, sends) ==
    /\ delivered[s] >= 1
    /\ cancels[s] < MaxCancels
    /\ CanCancel(s, th)
    /\ SyncQuiet(s)
    /\ cancels' = [cancels EXCEPT ![s] = @ + 1]
    /\ stack' = Push(s, th, "cancel")
    /\ up' = IF sends THEN [up EXCEPT ![s] = Append(@, [type |-> "cancel", n |-> 0])] ELSE up
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   sent, delivered, calls, faulted, callRaised>>
\* 3.7: a cancel() after the terminal signal is still sent and observed.
Mut_CancelAfterTerminalSends(s, th) == CancelSending(s, th, cancels[s] = 0)

\* 3.17: saturate when n > MaxDemand - d instead of >=.  Equivalent: for
\* n = MaxDemand - d the ELSE branch yields d + n = MaxDemand as well.
Mut_SatAddStrict(d, n) == IF d = MaxDemand \/ n > MaxDemand - d THEN MaxDemand ELSE d + n

\* Too strict, 3.2/3.3: the depth bound counts every signal frame, so the
\* RangePublisher's onSubscribe -> request -> onNext is refused at Depth 1.
Mut_CanBeginDepthCountsAllSignals(s, th, sig) ==
    /\ stack[s][th] = <<>> \/ TopIn(s, th, {"request"})
    /\ \A o \in Threads \ {th} : ~InSignal(s, o)
    /\ sig = "onNext" => Frames(s, th, SigNames) < Depth
\* Too strict, 2.8/1.8: no onNext committed once cancel() was called, even
\* before the Publisher received the cancel.
Mut_SendOnNextNotAfterCancelCall(s) ==
    OnNextWhen(s, pub[s] = "active" /\ ~Cancelled(s), TRUE, TRUE)
\* Too strict, 3.2/2.7: cancel() may not be called from inside onNext.
Mut_CanCancelNotInOnNext(s, th) ==
    \/ CanCall(s, th) /\ ~TopIn(s, th, {"onNext"})
    \/ CanFaultCancel(s, th)
\* Too strict, 1.4/2.10: a source failure is signalled only while demand is
\* outstanding.
Mut_ErrorAllowedSourceNeedsDemand(s, cause) ==
    CASE cause = "invalid" -> Invalid(s)
      [] cause = "source"  -> SourceFails /\ ~Invalid(s) /\ demand[s] > 0
      [] OTHER             -> FALSE
\* onNext signals committed and not yet begun.
NextsInFlight(s) ==
    Cardinality({i \in delivered[s] + 1..Len(sent[s]) : sent[s][i].sig = "onNext"})
\* Too strict, 1.5/1.3: onComplete waits until every onNext has begun.
Mut_SendOnCompleteAfterDelivery(s) ==
    CompleteWhen(s, pub[s] = "active" /\ NextsInFlight(s) = 0, TRUE, Exhausted(s))
\* Too strict, 1.3: the next onNext is committed only once the previous one began.
Mut_SendOnNextOneInFlight(s) ==
    OnNextWhen(s, pub[s] = "active" /\ NextsInFlight(s) = 0, TRUE, TRUE)

-----------------------------------------------------------------------------
(* Reachability witnesses: legal situations the spec must allow.  A witness *)
(* model checks one of them alone and must be violated (expect =           *)
(* "violation"); a stricter spec that forbids the situation passes it, and *)
(* the kill table counts that as caught.                                   *)

\* 3.2, 3.3: RangePublisher nesting at Depth 1: onSubscribe -> request -> onNext.
RangePublisherNestingWitness ==
    ~(\E s \in Subs, th \in Threads : stack[s][th] = <<"onSubscribe", "request", "onNext">>)
\* 2.8, 1.8: an onNext committed after cancel() was called, before the
\* Publisher received the cancel (an action: the state does not keep the order).
OnNextAfterCancelCallWitness ==
    [][\A s \in Subs :
          Cancelled(s) /\ pub[s] = "active" => Count(sent'[s], "onNext") = NextCount(s)]_vars
\* 1.3 is about running, not committing: two onNext signals committed and in
\* flight at once (onSubscribe or a terminal signal in flight does not count).
TwoSignalsInFlightWitness == ~(\E s \in Subs : NextsInFlight(s) >= 2)
\* 3.2: a request made inside onNext.
RequestInsideOnNextWitness ==
    ~(\E s \in Subs, th \in Threads : \E i \in 2..Len(stack[s][th]) :
         stack[s][th][i - 1] = "onNext" /\ stack[s][th][i] = "request")
\* 2.13: an onSubscribe that raised, answered by the cancel owed for it (the
\* only signal begun is onSubscribe, so the fault is its raise).
OnSubscribeRaisedWitness == ~(\E s \in Subs : faulted[s] /\ delivered[s] = 1 /\ Cancelled(s))
\* 3.2, 2.7: cancel() called from inside onNext (the Subscriber's own code).
CancelInsideOnNextWitness ==
    ~(\E s \in Subs, th \in Threads : \E i \in 2..Len(stack[s][th]) :
         stack[s][th][i - 1] = "onNext" /\ stack[s][th][i] = "cancel")
\* 1.4, 2.10: the source fails while no demand is outstanding (onError needs
\* no preceding request).
OnErrorWithoutDemandWitness ==
    ~(\E s \in Subs : demand[s] = 0 /\ \E i \in DOMAIN sent[s] : sent[s][i].err = "source")
\* 3.8: the drain loop slept (no demand) and a request woke it.
DrainWokenWitness == [][\A s \in Subs : awake[s] \/ ~awake'[s]]_vars
\* 1.5, 1.3: onComplete committed while an onNext before it is still in flight.
OnCompleteBehindOnNextWitness ==
    ~(\E s \in Subs : Len(sent[s]) >= 2 /\ delivered[s] < Len(sent[s]) - 1
                     /\ sent[s][Len(sent[s])].sig = "onComplete"
                     /\ sent[s][Len(sent[s]) - 1].sig = "onNext")

=============================================================================
