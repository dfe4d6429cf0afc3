--------------------------- MODULE MCMulticast -----------------------------
(***************************************************************************)
(* Model checking of Multicast.tla: symmetry, a resting step for finished  *)
(* runs, a reachability witness, and the mutations of the kill table (the  *)
(* same convention as MCReactiveStreams.tla: a Mut_* operator replaces one *)
(* normative operator in the .cfg).                                         *)
(***************************************************************************)
EXTENDS Multicast, TLC

\* For the safety models (not sound with liveness).
Symmetry == Permutations(Subs)

\* Terminated, or nobody listening (buffered elements wait for a subscriber).
Resting == (term \/ Active = {}) /\ UNCHANGED vars
MCNext == Next \/ Resting
MCSpec == Init /\ [][MCNext]_vars /\ Fairness

\* Witness (a must-fail model): publish() prefetches, i.e. a request to the
\* source takes the upstream requests in flight beyond the smallest subscriber
\* demand (> 0), so the MinDemand + B bound is approached, not implied by it.
\* An action: the state alone is reached by a late arrival too (a subscriber
\* arriving with less demand than was requested for the others).
MinDemandExercisedWitness ==
    [][upReq' > upReq /\ Active # {} /\ MinDemand > 0 => upReq' - taken <= MinDemand]_vars

-----------------------------------------------------------------------------
(* Mutations *)

\* Upstream requests follow the largest demand, ignoring MinDemand.
Mut_UpRequestMax(k) ==
    /\ disc = "no" /\ ~srcDone
    /\ upReq + k <= taken + MaxDemand + B
    /\ upReq' = upReq + k
    /\ UNCHANGED <<joined, st, demand, requested, delivered, upSent, taken, srcDone, disc, term>>

\* Upstream requests run ahead of the buffer: the whole source at once.
Mut_UpRequestAhead(k) ==
    /\ disc = "no" /\ ~srcDone
    /\ upReq + k <= N + B
    /\ upReq' = upReq + k
    /\ UNCHANGED <<joined, st, demand, requested, delivered, upSent, taken, srcDone, disc, term>>

\* Too strict: publish() never prefetches; it asks the source for no more than
\* the smallest subscriber demand (and the buffer bound).
Mut_UpRequestNoPrefetch(k) ==
    /\ disc = "no" /\ ~srcDone
    /\ upReq + k <= taken + Min({MinDemand, B})
    /\ upReq' = upReq + k
    /\ UNCHANGED <<joined, st, demand, requested, delivered, upSent, taken, srcDone, disc, term>>

\* The connection accepts elements it did not request.
Mut_UpEmitUnrequested ==
    /\ disc = "no" /\ ~srcDone
    /\ upSent < N
    /\ upSent' = upSent + 1
    /\ UNCHANGED <<joined, st, demand, requested, delivered, upReq, taken, srcDone, disc, term>>

\* Dispatch when some subscriber has demand, not every one (1.1).
Mut_CanDispatchAny == \E s \in Active : demand[s] > 0

\* A subscriber that left still counts in the lockstep.
Mut_CountedWithLeft == Active \cup Left

\* Dispatch does not consume the subscribers' demand (1.1).
Mut_DispatchKeepsDemand ==
    /\ Buf > 0 /\ Active # {} /\ ~term /\ disc \in {"no", "complete"}
    /\ CanDispatch
    /\ delivered' = [s \in Subs |-> IF s \in Active THEN delivered[s] + 1 ELSE delivered[s]]
    /\ taken' = taken + 1
    /\ UNCHANGED <<joined, st, demand, requested, upReq, upSent, srcDone, disc, term>>

\* Lossy lockstep: an element goes only to the subscribers with demand; the
\* slow ones miss it.
Mut_DispatchLossy ==
    /\ Buf > 0 /\ ~term /\ disc \in {"no", "complete"}
    /\ \E s \in Active : demand[s] > 0
    /\ LET R == {s \in Active : demand[s] > 0} IN
       /\ delivered' = [s \in Subs |-> IF s \in R THEN delivered[s] + 1 ELSE delivered[s]]
       /\ demand' = [s \in Subs |-> IF s \in R /\ demand[s] # Inf
                                      THEN demand[s] - 1 ELSE demand[s]]
    /\ taken' = taken + 1
    /\ UNCHANGED <<joined, st, requested, upReq, upSent, srcDone, disc, term>>

\* Completion does not wait for the buffer to drain.
Mut_CompleteEarly ==
    /\ srcDone /\ ~term /\ disc \in {"no", "complete"}
    /\ st' = [s \in Subs |-> IF st[s] = "active" THEN "done" ELSE st[s]]
    /\ term' = TRUE
    /\ UNCHANGED <<joined, demand, requested, delivered, upReq, upSent, taken, srcDone, disc>>

\* Fairness with one conjunct removed (a connection that may stop doing it).
FairnessWithout(drop) ==
    /\ "request" # drop => WF_vars(\E k \in 1..B : UpRequest(k))
    /\ "emit" # drop => WF_vars(UpEmit)
    /\ "source_complete" # drop => WF_vars(UpComplete)
    /\ WF_vars(Dispatch)
    /\ WF_vars(Drop)
    /\ "complete" # drop => WF_vars(Complete)
\* 1.5: the connection may never complete its subscribers.
Mut_FairnessNoComplete == FairnessWithout("complete")
\* 1.5: the source may never signal its completion.
Mut_FairnessNoSourceComplete == FairnessWithout("source_complete")
\* 1.1/3.8: the connection may stop asking the source for more.
Mut_FairnessNoUpRequest == FairnessWithout("request")

\* A subscriber arriving after termination stays active and is never terminated.
Mut_ArriveAlwaysActive(s) ==
    /\ st[s] = "absent"
    /\ st' = [st EXCEPT ![s] = "active"]
    /\ joined' = [joined EXCEPT ![s] = taken]
    /\ UNCHANGED <<demand, requested, delivered, upReq, upSent, taken, srcDone, disc, term>>
=============================================================================
