--------------------------- MODULE MulticastLead ---------------------------
(***************************************************************************)
(* Request coordination of publish(lead=L): one source, several            *)
(* subscribers, each at its own pace, the fastest at most L elements ahead *)
(* of the slowest.                                                          *)
(*                                                                         *)
(* The connection holds elements in a ring of L slots: element i (1, 2,    *)
(* ...) is written to slot (i-1) % L.  Each subscriber has a cursor (the   *)
(* elements it has passed) and takes the element in its cursor's slot as  *)
(* it requests.  base is the smallest cursor of the active subscribers     *)
(* (everything before it left the ring; with nobody subscribed elements    *)
(* are dropped).  The source is asked for the room the slowest leaves in   *)
(* the ring, once at least Limit slots are free (half the ring).  A        *)
(* subscriber arriving while others run starts at front: the oldest        *)
(* element no subscriber has received.                                      *)
(*                                                                         *)
(* What is checked: the ring holds at most L elements; each subscriber     *)
(* receives every element from its arrival on, once, in order (the value   *)
(* read from the slot is the one its cursor names: an overwritten slot     *)
(* breaks it); rule 1.1 per subscriber; and liveness: a subscriber with    *)
(* demand at most L - Limit ahead of the slowest eventually receives (so   *)
(* the slowest with demand is never starved).  Disconnect strategies and   *)
(* errors are the connection's shared code, modelled in Multicast.tla.    *)
(*                                                                         *)
(* Implementation: impl/reactive_streams/multicast/_lead.py.  Bounds and   *)
(* the mutations of the kill table live in MCMulticastLead.tla.            *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Subs,       \* subscriber ids (model values)
    N,          \* elements the source has
    L,          \* the lead: slots in the ring
    MaxReq,     \* bound on the finite total a subscriber requests
    Inf         \* stands for 2^63-1 (unbounded demand); any number > MaxReq + N

ASSUME /\ N \in Nat /\ L \in Nat \ {0} /\ MaxReq \in Nat \ {0}
       /\ Inf \in Nat /\ Inf > MaxReq + N

\* The top-up threshold of _lead.py: max(1, L // 2).
Limit == IF L \div 2 > 0 THEN L \div 2 ELSE 1

VARIABLES
    st,         \* [Subs -> {"absent", "active", "left", "done"}]
    demand,     \* outstanding demand per subscriber (Inf: unbounded)
    requested,  \* total requested per subscriber (Inf: unbounded)
    delivered,  \* elements delivered per subscriber
    cursor,     \* elements passed per subscriber: the next one it takes is cursor + 1
    seen,       \* the last element a subscriber received (its cursor at arrival before any)
    ring,       \* [0..L-1 -> 0..N]: the element each slot holds (0: none yet)
    upReq,      \* total requested from the source
    upSent,     \* elements the source has sent (written to the ring)
    base,       \* elements that left the ring
    front,      \* elements some subscriber received, or dropped
    srcDone     \* the source completed

vars == <<st, demand, requested, delivered, cursor, seen, ring, upReq, upSent, base, front,
          srcDone>>

Demand == 0..MaxReq \cup {Inf}
Active == {s \in Subs : st[s] = "active"}
Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Max2(a, b) == IF a >= b THEN a ELSE b
\* Where base may move: the slowest active cursor, or everything with nobody listening.
Slowest == IF Active = {} THEN upSent ELSE Min({cursor[s] : s \in Active})
Held == upSent - base

TypeOK ==
    /\ st \in [Subs -> {"absent", "active", "left", "done"}]
    /\ demand \in [Subs -> Demand]
    /\ requested \in [Subs -> Demand]
    /\ delivered \in [Subs -> 0..N]
    /\ cursor \in [Subs -> 0..N]
    /\ seen \in [Subs -> 0..N]
    /\ ring \in [0..L-1 -> 0..N]
    /\ upReq \in Nat /\ upSent \in 0..N /\ base \in 0..upSent /\ front \in 0..upSent
    /\ srcDone \in BOOLEAN

Init ==
    /\ st = [s \in Subs |-> "absent"]
    /\ demand = [s \in Subs |-> 0]
    /\ requested = [s \in Subs |-> 0]
    /\ delivered = [s \in Subs |-> 0]
    /\ cursor = [s \in Subs |-> 0]
    /\ seen = [s \in Subs |-> 0]
    /\ ring = [i \in 0..L-1 |-> 0]
    /\ upReq = 0 /\ upSent = 0 /\ base = 0 /\ front = 0
    /\ srcDone = FALSE

-----------------------------------------------------------------------------
(* Subscribers *)

\* A newcomer starts at front: it never sees what another subscriber already had.
Arrive(s) ==
    /\ st[s] = "absent"
    /\ st' = [st EXCEPT ![s] = "active"]
    /\ cursor' = [cursor EXCEPT ![s] = Max2(front, base)]
    /\ seen' = [seen EXCEPT ![s] = Max2(front, base)]
    /\ UNCHANGED <<demand, requested, delivered, ring, upReq, upSent, base, front, srcDone>>

Request(s, n) ==
    /\ st[s] = "active"
    /\ requested[s] # Inf /\ requested[s] + n <= MaxReq
    /\ demand' = [demand EXCEPT ![s] = @ + n]
    /\ requested' = [requested EXCEPT ![s] = @ + n]
    /\ UNCHANGED <<st, delivered, cursor, seen, ring, upReq, upSent, base, front, srcDone>>

RequestUnbounded(s) ==  \* request(2^63-1): rule 3.17
    /\ st[s] = "active" /\ requested[s] # Inf
    /\ demand' = [demand EXCEPT ![s] = Inf]
    /\ requested' = [requested EXCEPT ![s] = Inf]
    /\ UNCHANGED <<st, delivered, cursor, seen, ring, upReq, upSent, base, front, srcDone>>

Leave(s) ==  \* cancel(): its cursor no longer holds the ring
    /\ st[s] = "active"
    /\ st' = [st EXCEPT ![s] = "left"]
    /\ UNCHANGED <<demand, requested, delivered, cursor, seen, ring, upReq, upSent, base,
                   front, srcDone>>

-----------------------------------------------------------------------------
(* The connection and the source *)

\* The slowest's room in the ring, asked for at once when at least Limit slots are free.
Room == base + L - upReq
UpRequest ==
    /\ ~srcDone
    /\ Room >= Limit
    /\ upReq' = upReq + Room
    /\ UNCHANGED <<st, demand, requested, delivered, cursor, seen, ring, upSent, base, front,
                   srcDone>>

UpEmit ==  \* the source obeys rule 1.1; the element goes to its slot
    /\ ~srcDone
    /\ upSent < upReq /\ upSent < N
    /\ ring' = [ring EXCEPT ![upSent % L] = upSent + 1]
    /\ upSent' = upSent + 1
    /\ UNCHANGED <<st, demand, requested, delivered, cursor, seen, upReq, base, front, srcDone>>

UpComplete ==
    /\ ~srcDone /\ upSent = N
    /\ srcDone' = TRUE
    /\ UNCHANGED <<st, demand, requested, delivered, cursor, seen, ring, upReq, upSent, base,
                   front>>

CanDeliver(s) == demand[s] > 0

\* s takes the element in its cursor's slot.
Deliver(s) ==
    /\ st[s] = "active" /\ cursor[s] < upSent
    /\ CanDeliver(s)
    /\ seen' = [seen EXCEPT ![s] = ring[cursor[s] % L]]
    /\ cursor' = [cursor EXCEPT ![s] = @ + 1]
    /\ delivered' = [delivered EXCEPT ![s] = @ + 1]
    /\ demand' = [demand EXCEPT ![s] = IF @ \in {0, Inf} THEN @ ELSE @ - 1]
    /\ front' = Max2(front, cursor[s] + 1)
    /\ UNCHANGED <<st, requested, ring, upReq, upSent, base, srcDone>>

\* Elements every active subscriber has passed leave the ring (all, with nobody there).
Release ==
    /\ base < Slowest
    /\ base' = Slowest
    /\ front' = Max2(front, Slowest)
    /\ UNCHANGED <<st, demand, requested, delivered, cursor, seen, ring, upReq, upSent,
                   srcDone>>

\* Completion reaches a subscriber once it has passed every element.
Complete(s) ==
    /\ st[s] = "active" /\ srcDone /\ cursor[s] = upSent
    /\ st' = [st EXCEPT ![s] = "done"]
    /\ UNCHANGED <<demand, requested, delivered, cursor, seen, ring, upReq, upSent, base,
                   front, srcDone>>

Next ==
    \/ \E s \in Subs :
          \/ Arrive(s) \/ Leave(s) \/ RequestUnbounded(s) \/ Deliver(s) \/ Complete(s)
          \/ \E n \in 1..MaxReq : Request(s, n)
    \/ UpRequest \/ UpEmit \/ UpComplete \/ Release

\* The fairness a real connection provides: the source emits what was requested and
\* completes, the connection keeps requesting, delivering, releasing and completing.
\* The subscribers' own calls are never forced.
Fairness ==
    /\ WF_vars(UpRequest)
    /\ WF_vars(UpEmit)
    /\ WF_vars(UpComplete)
    /\ WF_vars(Release)
    /\ \A s \in Subs : WF_vars(Deliver(s)) /\ WF_vars(Complete(s))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Properties *)

\* The ring holds at most L elements: no slot is written while its element is held.
LeadHeldBoundedInv == Held <= L

\* Each subscriber receives every element from its arrival on, once, in order: the
\* element it last received is the one its cursor names (an overwritten slot breaks it).
LeadInOrderInv == \A s \in Subs : st[s] # "absent" => seen[s] = cursor[s]

\* Rule 1.1, for each subscriber: never more elements than it requested.
Spec101_DeliveredLeqRequestedInv == \A s \in Subs : delivered[s] <= requested[s]

\* A subscriber with demand, at most L - Limit ahead of the slowest, eventually receives
\* its next element (or stops being active): the slowest with demand is never starved.
LeadDeliversProp ==
    \A s \in Subs, k \in 0..N :
        (/\ st[s] = "active" /\ cursor[s] = k /\ k < N /\ demand[s] > 0
         /\ k - Slowest <= L - Limit)
        ~> (cursor[s] > k \/ st[s] # "active")

=============================================================================
