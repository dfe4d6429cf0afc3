----------------------------- MODULE Multicast -----------------------------
(***************************************************************************)
(* Request coordination of publish(): one source, several subscribers in    *)
(* lockstep, a buffer of at most B elements between them.                  *)
(*                                                                         *)
(* The connection asks the source for at most B elements beyond those that *)
(* have left the buffer; an element leaves the buffer only when every       *)
(* subscriber still counted has demand for it, and then goes to all of      *)
(* them at once; with nobody subscribed it is dropped.  Subscribers arrive, *)
(* request (a bounded amount, or "unbounded" = 2^63-1, rule 3.17), leave    *)
(* (cancel) at any time; the source emits and completes; the connection may *)
(* be disconnected with one of three strategies.                            *)
(*                                                                         *)
(* Implementation: impl/reactive_streams/multicast/publish.py.  Bounds,    *)
(* symmetry and the mutations (deliberate defects for the kill table) live *)
(* in MCMulticast.tla.                                                      *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Subs,               \* subscriber ids (model values)
    N,                  \* elements the source has
    B,                  \* buffer bound (buffer_size)
    MaxReq,             \* bound on the finite total a subscriber requests
    Inf,                \* stands for 2^63-1 (unbounded demand); any number > MaxReq + N
    Strategy            \* on_disconnect: "error", "complete" or "none"

ASSUME /\ N \in Nat /\ B \in Nat \ {0} /\ MaxReq \in Nat \ {0}
       /\ Inf \in Nat /\ Inf > MaxReq + N
       /\ Strategy \in {"error", "complete", "none"}

VARIABLES
    st,         \* [Subs -> {"absent", "active", "left", "done", "dropped"}]
    demand,     \* outstanding demand per subscriber (Inf: unbounded)
    requested,  \* total requested per subscriber (Inf: unbounded)
    delivered,  \* elements delivered per subscriber
    upReq,      \* total requested from the source
    upSent,     \* elements the source has sent
    taken,      \* elements that left the buffer (delivered to all, or dropped)
    srcDone,    \* the source completed (or a disconnect asked for completion)
    disc,       \* "no" or the strategy applied by disconnect()
    term,       \* every subscriber got its terminal signal; late arrivals get it at once
    joined      \* ghost: elements that had left the buffer when s arrived (0 once exempt)

vars == <<st, demand, requested, delivered, upReq, upSent, taken, srcDone, disc, term, joined>>

Demand == 0..MaxReq \cup {Inf}
Buf == upSent - taken
Active == {s \in Subs : st[s] = "active"}
Left == {s \in Subs : st[s] = "left"}
\* whose demand gates the lockstep: the subscribers still active
Counted == Active

Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Max(S) == CHOOSE x \in S : \A y \in S : x >= y
MinDemand == IF Active = {} THEN 0 ELSE Min({demand[s] : s \in Active})
Capped(d) == IF d = Inf THEN MaxReq ELSE d
MaxDemand == IF Active = {} THEN 0 ELSE Max({Capped(demand[s]) : s \in Active})

TypeOK ==
    /\ st \in [Subs -> {"absent", "active", "left", "done", "dropped"}]
    /\ demand \in [Subs -> Demand]
    /\ requested \in [Subs -> Demand]
    /\ delivered \in [Subs -> 0..N]
    /\ upReq \in Nat /\ upSent \in 0..N /\ taken \in 0..upSent
    /\ srcDone \in BOOLEAN /\ term \in BOOLEAN
    /\ disc \in {"no", "error", "complete", "none"}
    /\ joined \in [Subs -> 0..N]

Init ==
    /\ st = [s \in Subs |-> "absent"]
    /\ demand = [s \in Subs |-> 0]
    /\ requested = [s \in Subs |-> 0]
    /\ delivered = [s \in Subs |-> 0]
    /\ upReq = 0 /\ upSent = 0 /\ taken = 0
    /\ srcDone = FALSE /\ disc = "no" /\ term = FALSE
    /\ joined = [s \in Subs |-> 0]

-----------------------------------------------------------------------------
(* Subscribers *)

Arrive(s) ==
    /\ st[s] = "absent"
    /\ st' = [st EXCEPT ![s] = IF term THEN "done" ELSE "active"]
    /\ joined' = [joined EXCEPT ![s] = taken]
    /\ UNCHANGED <<demand, requested, delivered, upReq, upSent, taken, srcDone, disc, term>>

Request(s, n) ==
    /\ st[s] = "active"
    /\ requested[s] # Inf /\ requested[s] + n <= MaxReq
    /\ demand' = [demand EXCEPT ![s] = IF @ = Inf THEN Inf ELSE @ + n]
    /\ requested' = [requested EXCEPT ![s] = @ + n]
    /\ UNCHANGED <<joined, st, delivered, upReq, upSent, taken, srcDone, disc, term>>

RequestUnbounded(s) ==  \* request(2^63-1): rule 3.17
    /\ st[s] = "active" /\ requested[s] # Inf
    /\ demand' = [demand EXCEPT ![s] = Inf]
    /\ requested' = [requested EXCEPT ![s] = Inf]
    /\ UNCHANGED <<joined, st, delivered, upReq, upSent, taken, srcDone, disc, term>>

Leave(s) ==  \* cancel(); the connection removes it before the next element
    /\ st[s] = "active"
    /\ st' = [st EXCEPT ![s] = "left"]
    /\ joined' = [joined EXCEPT ![s] = 0]    \* exempt from PublishNoLossInv now
    /\ UNCHANGED <<demand, requested, delivered, upReq, upSent, taken, srcDone, disc, term>>

-----------------------------------------------------------------------------
(* The connection and the source *)

\* Top up the source's demand by k (the implementation waits for a quarter of the buffer).
UpRequest(k) ==
    /\ disc = "no" /\ ~srcDone
    /\ upReq + k <= taken + B
    /\ upReq' = upReq + k
    /\ UNCHANGED <<joined, st, demand, requested, delivered, upSent, taken, srcDone, disc, term>>

UpEmit ==  \* the source obeys rule 1.1
    /\ disc = "no" /\ ~srcDone
    /\ upSent < upReq /\ upSent < N
    /\ upSent' = upSent + 1
    /\ UNCHANGED <<joined, st, demand, requested, delivered, upReq, taken, srcDone, disc, term>>

UpComplete ==
    /\ disc = "no" /\ ~srcDone /\ upSent = N
    /\ srcDone' = TRUE
    /\ UNCHANGED <<joined, st, demand, requested, delivered, upReq, upSent, taken, disc, term>>

CanDispatch == \A s \in Counted : demand[s] > 0

\* One element leaves the buffer and goes to every active subscriber (lockstep).
Dispatch ==
    /\ Buf > 0 /\ Active # {} /\ ~term /\ disc \in {"no", "complete"}
    /\ CanDispatch
    /\ delivered' = [s \in Subs |-> IF s \in Active THEN delivered[s] + 1 ELSE delivered[s]]
    /\ demand' = [s \in Subs |-> IF s \in Active /\ demand[s] \notin {0, Inf}
                                   THEN demand[s] - 1 ELSE demand[s]]
    /\ taken' = taken + 1
    /\ UNCHANGED <<joined, st, requested, upReq, upSent, srcDone, disc, term>>

\* Nobody listens: the element is dropped (a late subscriber sees only later ones).
Drop ==
    /\ Buf > 0 /\ Counted = {} /\ disc = "no"
    /\ taken' = taken + 1
    /\ UNCHANGED <<joined, st, demand, requested, delivered, upReq, upSent, srcDone, disc, term>>

Complete ==  \* completion waits until the buffer has drained
    /\ srcDone /\ Buf = 0 /\ ~term /\ disc \in {"no", "complete"}
    /\ st' = [s \in Subs |-> IF st[s] = "active" THEN "done" ELSE st[s]]
    /\ term' = TRUE
    /\ UNCHANGED <<joined, demand, requested, delivered, upReq, upSent, taken, srcDone, disc>>

Disconnect ==
    /\ disc = "no" /\ ~term
    /\ disc' = Strategy
    /\ CASE Strategy = "error" ->      \* DisconnectedError overtakes the buffer
              /\ st' = [s \in Subs |-> IF st[s] = "active" THEN "done" ELSE st[s]]
              /\ taken' = upSent /\ term' = TRUE /\ srcDone' = srcDone
         [] Strategy = "complete" ->   \* buffered elements on demand, then completion
              /\ srcDone' = TRUE /\ UNCHANGED <<st, taken, term>>
         [] Strategy = "none" ->       \* nothing more, references dropped
              /\ st' = [s \in Subs |-> IF st[s] = "active" THEN "dropped" ELSE st[s]]
              /\ taken' = upSent /\ term' = TRUE /\ srcDone' = srcDone
    /\ joined' = IF Strategy = "complete" THEN joined     \* the others are exempt now
                 ELSE [s \in Subs |-> IF st[s] = "active" THEN 0 ELSE joined[s]]
    /\ UNCHANGED <<demand, requested, delivered, upReq, upSent>>

Next ==
    \/ \E s \in Subs :
          \/ Arrive(s) \/ Leave(s) \/ RequestUnbounded(s)
          \/ \E n \in 1..MaxReq : Request(s, n)
    \/ \E k \in 1..B : UpRequest(k)
    \/ UpEmit \/ UpComplete \/ Dispatch \/ Drop \/ Complete \/ Disconnect

\* The fairness a real connection provides: the source keeps emitting what was
\* requested and completes (it obeys rule 1.1 and terminates, 1.5), the
\* connection keeps requesting, dispatching, dropping and completing.  The
\* subscribers' own calls and disconnect() are never forced.
Fairness ==
    /\ WF_vars(\E k \in 1..B : UpRequest(k))
    /\ WF_vars(UpEmit)
    /\ WF_vars(UpComplete)
    /\ WF_vars(Dispatch)
    /\ WF_vars(Drop)
    /\ WF_vars(Complete)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Properties *)

\* Upstream requests never exceed the minimum downstream demand plus the buffer bound
\* (counted from the elements that have left the buffer).
UpstreamLeqMinDemandPlusBufferInv == upReq - taken <= MinDemand + B

\* Rule 1.1, for each subscriber: never more elements than it requested.
Spec101_DeliveredLeqRequestedInv == \A s \in Subs : delivered[s] <= requested[s]

\* publish() loses nothing: an active subscriber has every element that left the
\* buffer since it arrived, in order (lockstep: a count says it); a subscriber
\* completed normally has every element the source sent since it arrived.
\* Those that cancelled, were dropped or got the disconnect error are exempt.
PublishNoLossInv ==
    \A s \in Subs :
        /\ st[s] = "active" => joined[s] + delivered[s] = taken
        /\ st[s] = "done" /\ disc # "error" => joined[s] + delivered[s] = upSent

\* Once the connection terminated, nobody is left active: a late subscriber
\* gets the terminal signal at once.
PublishLateSubscriberTerminatedInv == term => Active = {}

\* The buffer holds at most B elements.
BufferBoundedInv == Buf <= B

\* A subscriber that leaves releases its pressure: once every other subscriber has
\* left, a subscriber with demand and a non-empty buffer receives the next element
\* (or stops being active).
LeaveReleasesPressure_Prop ==
    \A s \in Subs, k \in 0..N :
        (/\ st[s] = "active" /\ delivered[s] = k /\ demand[s] > 0 /\ Buf > 0
         /\ \A t \in Subs \ {s} : st[t] = "left")
        ~> (delivered[s] > k \/ st[s] # "active")

\* publish() delivers: while every subscriber the lockstep counts has demand
\* and the source has elements left, an active subscriber receives the next
\* element (or stops being active), unless a subscriber without demand joins.
PublishDeliversProp ==
    \A s \in Subs, k \in 0..N :
        (/\ st[s] = "active" /\ delivered[s] = k /\ taken < N
         /\ \A t \in Counted : demand[t] > 0)
        ~> (delivered[s] > k \/ st[s] # "active" \/ \E t \in Counted : demand[t] = 0)

\* publish() terminates every subscriber: once the source has sent all it has
\* (or a disconnect asked for completion) and the buffer has drained, the
\* connection terminates (and with it every subscriber, late ones at once).
PublishTerminatesProp == (Buf = 0 /\ (upSent = N \/ srcDone)) ~> term

=============================================================================
