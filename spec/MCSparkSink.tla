--------------------------- MODULE MCSparkSink -----------------------------
(***************************************************************************)
(* Model checking of SparkSink.tla: the mutations of the kill table (the  *)
(* same convention as MCReactiveStreams.tla: a Mut_* operator replaces one *)
(* normative operator in the .cfg, every invariant and property stays on). *)
(* The protocol variants of SparkSink.tla (Variant) are its hand-written   *)
(* must-fail models; these are defects of the correct protocol.           *)
(***************************************************************************)
EXTENDS SparkSink, TLC

\* An element delivered does not consume the sink's outstanding demand: the
\* upstream may send more than the free buffer.
Mut_DeliverKeepsDemand ==
    /\ ~done /\ demand > 0 /\ srcNext < N /\ Delivered(srcNext + 1)
    /\ srcNext' = srcNext + 1
    /\ fillHi' = srcNext + 1
    /\ UNCHANGED <<acked, demand, fillLo, sealedCnt, inflight, nextBid, files, log, crashes,
                   failures, done>>
    /\ UNCHANGED zvars

\* The upstream is acknowledged once the batch's files are written, before its
\* commit record (a crash then loses acknowledged records from the view).
Mut_FreePhaseBeforeCommit == "written"

\* The commit record's resume position is one short: a replay from it would
\* repeat the batch's last record, which the view already holds.
Mut_ResShort(b) == b.hi - 1

\* The sink may stop before it completes: no fairness on Complete.
Mut_FairnessNoComplete == WF_vars(Deliver) /\ WF_vars(Drop) /\ WF_vars(Seal) /\ WF_vars(Write)
                          /\ WF_vars(Commit) /\ WF_vars(Free)
=============================================================================
