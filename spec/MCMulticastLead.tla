------------------------- MODULE MCMulticastLead ---------------------------
(***************************************************************************)
(* Model checking of MulticastLead.tla: symmetry, a resting step for       *)
(* finished runs, and the mutations of the kill table (a Mut_* operator    *)
(* replaces one normative operator in the .cfg, as in MCMulticast.tla).    *)
(***************************************************************************)
EXTENDS MulticastLead, TLC

\* For the safety models (not sound with liveness).
Symmetry == Permutations(Subs)

\* Everybody left or completed and the source is done: nothing more happens.
Resting == srcDone /\ (\A s \in Subs : st[s] \in {"left", "done"}) /\ UNCHANGED vars
MCNext == Next \/ Resting
MCSpec == Init /\ [][MCNext]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Mutations *)

\* Upstream demand ignores the lead: the room is counted from the fastest subscriber,
\* so the source is asked for slots the slowest still holds.
Mut_RoomFromFront == front + L - upReq

\* The ring frees the elements the fastest has passed: a slot the slowest has not
\* taken is written again.
Fastest == IF Active = {} THEN upSent
           ELSE CHOOSE x \in {cursor[s] : s \in Active} :
                    \A y \in {cursor[s] : s \in Active} : x >= y
Mut_ReleaseFastest ==
    /\ base < Fastest
    /\ base' = Fastest
    /\ front' = Max2(front, Fastest)
    /\ UNCHANGED <<st, demand, requested, delivered, cursor, seen, ring, upReq, upSent,
                   srcDone>>

\* Deliver without demand (rule 1.1).
Mut_CanDeliverAlways(s) == TRUE

\* Top up only when the whole ring is free: a subscriber ahead of a slow one without
\* demand waits for ever, though within the lead.
Mut_UpRequestWholeRing ==
    /\ ~srcDone
    /\ Room >= L
    /\ upReq' = upReq + Room
    /\ UNCHANGED <<st, demand, requested, delivered, cursor, seen, ring, upSent, base, front,
                   srcDone>>
=============================================================================
