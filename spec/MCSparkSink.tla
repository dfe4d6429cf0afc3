--------------------------- MODULE MCSparkSink -----------------------------
(***************************************************************************)
(* Model checking of SparkSink.tla: the mutations of the kill table (the  *)
(* same convention as MCReactiveStreams.tla: a Mut_* operator replaces one *)
(* normative operator in the rendered .cfg, every invariant and property   *)
(* stays on, and TLC must report the mutation's named target).  The       *)
(* protocols the sink must not follow are mutations too (they were a      *)
(* Variant constant of SparkSink.tla with hand-written cfgs).              *)
(***************************************************************************)
EXTENDS SparkSink, TLC

\* An element delivered does not consume the sink's outstanding demand: the
\* upstream may send more than the free buffer.
Mut_DeliverKeepsDemand ==
    /\ ~done /\ demand > 0 /\ srcNext < N /\ Delivered(srcNext + 1)
    /\ srcNext' = srcNext + 1
    /\ fillHi' = srcNext + 1
    /\ est' = NextEst(Sz(srcNext + 1))
    /\ UNCHANGED <<acked, demand, asked, fillLo, sealedCnt, inflight, nextBid, files, log,
                   crashes, failures, done>>
    /\ UNCHANGED zvars

\* The upstream is acknowledged once the batch's files are written, before its
\* commit record (a crash then loses acknowledged records from the view).
Mut_FreePhaseBeforeCommit == "written"

\* The commit record's resume position is one short: a replay from it would
\* repeat the batch's last record, which the view already holds.
Mut_ResShort(b) == b.hi - 1

\* The sink may stop before it completes: no fairness on Complete.
Mut_FairnessNoComplete == WF_vars(Request) /\ WF_vars(Deliver) /\ WF_vars(Drop)
                          /\ WF_vars(Seal) /\ WF_vars(Write) /\ WF_vars(Commit)
                          /\ WF_vars(Publish) /\ WF_vars(Free)

(* ------------- the protocols the sink must not follow ------------------ *)

\* "sink_count": the record stores the sink's element count, and a restart resumes
\* the source there; once a filter drops a record the count lags the position.
Mut_ResSinkCount(b) == b.chi

\* "commit_before_write": Commit -> Write -> Publish -> Free (a crash between the
\* commit and the write names data that is not there).
Mut_WritePhaseAfterCommit == "committed"
Mut_AfterWriteDurable == "durable"
Mut_CommitPhaseSealed == "sealed"
Mut_PublishPhaseDurable == "durable"

\* "no_commit_log": Write -> Free, readers see every file (a failed write's partial
\* file and a replay's rewrite are both visible).
Mut_CommitNever == FALSE
Mut_ViewEveryFile == files

\* "ack_before_durable": the upstream is acknowledged at Seal, before the write.
Mut_AckAtSeal(b) == Max(acked, Res(b))

\* "unfenced": the new writer creates no fence record; the zombie's commit of a batch
\* whose files recovery deleted then succeeds.
Mut_Unfenced(fence) == log

\* A new writer does not fence again when the log already ends with a fence (the
\* previous takeover's): the zombie of the writer it replaced, which committed
\* nothing, is not fenced.  Only a second zombie shows it (issue 39).
Mut_FencedUnlessFenced(fence) ==
    IF \E l \in log : l.fence /\ l.bid = Cardinality(log) - 1 THEN log ELSE log \cup {fence}

\* The fence is written as an ordinary commit record: it names data (none) that is
\* not there, so a restart's recovery would refuse to resume.
Mut_FenceRecAsData(run, bid) == [run |-> run, bid |-> bid, att |-> 0, rows |-> {},
                                 res |-> LogRes, cnt |-> LogCnt, fence |-> FALSE]

\* A restart replays from the acknowledged position (the last batch published and
\* freed), not the committed one: a batch committed but not yet published or
\* acknowledged is committed again.
Mut_ResumeAcked == acked

\* No latency timer: an open stream's last partial batch waits for ever.
Mut_NoTimer == FALSE

\* The sink finishes without waiting for the batches in flight to commit.
Mut_CompleteEarly ==
    /\ Completes /\ ~done /\ srcNext = N /\ fillHi = fillLo
    /\ done' = TRUE
    /\ UNCHANGED <<srcNext, acked, fillLo, fillHi, sealedCnt, inflight, nextBid, files,
                   log, crashes, failures>>
    /\ UNCHANGED bvars
    /\ UNCHANGED zvars

(* ------------- the byte budget (issue 42) ------------------------------- *)

\* Demand counted in records only (main before issue 42): the free bytes are not
\* asked, any slice of records fits.
Mut_FitBytesUnbounded == Slice

\* The request counts the filling batch's bytes but forgets those in flight.
Mut_FitBytesFillingOnly == IF FillBytes + demand * est >= ByteCap THEN 0
                           ELSE (ByteCap - FillBytes - demand * est) \div est

\* A batch is cut at B elements whatever its bytes (the seal point a row count).
Mut_CutRows(lo, hi) == MaxOf({h \in lo + 1..hi : Delivered(h) /\ Slots(lo, h) <= B})

(* ------------- the staged, not yet published batch (issue 42) ----------- *)

\* read_committed reads every committed batch where it lies, a staging directory
\* beside published batch directories (CONFLICTING_DIRECTORY_STRUCTURES).
Mut_ReadEveryCommitted == View

\* The upstream is acknowledged once the commit record exists, before the rename.
Mut_FreePhaseBeforePublish == "committed"

\* Recovery keeps a committed batch in staging instead of renaming it.
Mut_RecoveredNoRollForward == View
=============================================================================
