---------------------------- MODULE SparkSink ----------------------------
(***************************************************************************)
(* The commit protocol of reactive_streams.spark.SparkSink, with crash and *)
(* restart.  A replayable source delivers records 1..N on demand; the sink *)
(* fills batches of at most B records, keeps at most two sealed batches in *)
(* flight, and for each batch (in batch-id order) does                     *)
(*   Write  : durable data files in a staging place (may fail, leaving a   *)
(*            partial file, and is retried under a new attempt number)     *)
(*   Commit : the atomic commit record naming run, batch, attempt, range   *)
(*   Free   : acknowledge: the upstream may forget records up to the batch *)
(*            end, and the freed buffer becomes demand again.              *)
(* Readers see the files the log names (recovery rolls them forward and    *)
(* deletes the rest).  A crash loses memory (buffer, batches, demand); the *)
(* files, the log and the upstream's acknowledged offset survive, and the  *)
(* restarted sink resumes the source at the committed offset.              *)
(*                                                                         *)
(* Variant selects the protocol; the three wrong ones must fail:           *)
(*   "correct"              Write -> Commit -> Free                        *)
(*   "commit_before_write"  Commit -> Write -> Free  (breaks SinkNoLossInv) *)
(*   "no_commit_log"        Write -> Free, readers see every file          *)
(*                          (breaks SinkNoDuplicateInv)                    *)
(*   "ack_before_durable"   the upstream is acknowledged at Seal           *)
(*                          (breaks SinkNoLossInv)                         *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS N, B, MaxCrashes, MaxFailures, Variant

ASSUME N \in Nat /\ B \in Nat \ {0} /\ MaxCrashes \in Nat /\ MaxFailures \in Nat
ASSUME Variant \in {"correct", "commit_before_write", "no_commit_log", "ack_before_durable"}

Cap == 2 * B                         \* buffer capacity: two batches

VARIABLES
    srcNext,    \* records 1..srcNext have been delivered in this run
    acked,      \* the upstream was told records 1..acked are safe
    demand,     \* outstanding demand (requested, not delivered)
    fillLo,     \* records fillLo+1..fillHi are being filled
    fillHi,
    inflight,   \* sealed, not yet freed batches, oldest first
    nextBid,    \* id of the next sealed batch
    files,      \* durable data files
    log,        \* commit records
    crashes,
    failures,
    done

vars == <<srcNext, acked, demand, fillLo, fillHi, inflight, nextBid, files, log,
          crashes, failures, done>>

Max(a, b) == IF a > b THEN a ELSE b
Min(a, b) == IF a < b THEN a ELSE b

LogHi == IF log = {} THEN 0 ELSE CHOOSE h \in {l.hi : l \in log} : \A l \in log : l.hi <= h

InflightRows == LET F[i \in 0..Len(inflight)] ==
                      IF i = 0 THEN 0 ELSE F[i - 1] + inflight[i].hi - inflight[i].lo
                IN F[Len(inflight)]

\* What a reader sees: the files the commit log names (every file without a log).
View == IF Variant = "no_commit_log" THEN files
        ELSE {f \in files : \E l \in log : l.run = f.run /\ l.bid = f.bid /\ l.att = f.att
                                             /\ l.lo = f.lo /\ l.hi = f.hi}

Count(r) == Cardinality({f \in View : f.lo < r /\ r <= f.hi})

FileRec(b) == [run |-> crashes, bid |-> b.bid, att |-> b.att, lo |-> b.lo, hi |-> b.hi]

(* ---------------------------------------------------------------------- *)
Init ==
    /\ srcNext = 0
    /\ acked = 0
    /\ demand = Cap
    /\ fillLo = 0
    /\ fillHi = 0
    /\ inflight = <<>>
    /\ nextBid = 0
    /\ files = {}
    /\ log = {}
    /\ crashes = 0
    /\ failures = 0
    /\ done = FALSE

\* The source delivers one record (rule 1.1: only within demand).
Deliver ==
    /\ ~done /\ demand > 0 /\ srcNext < N
    /\ srcNext' = srcNext + 1
    /\ fillHi' = fillHi + 1
    /\ demand' = demand - 1
    /\ UNCHANGED <<acked, fillLo, inflight, nextBid, files, log, crashes, failures, done>>

\* A full batch (or the last, partial one) is sealed; at most two in flight.
Seal ==
    /\ fillHi > fillLo
    /\ fillHi - fillLo >= B \/ srcNext = N
    /\ Len(inflight) < 2
    /\ LET k == Min(B, fillHi - fillLo)
           b == [bid |-> nextBid, att |-> 0, lo |-> fillLo, hi |-> fillLo + k,
                 phase |-> "sealed"]
       IN /\ inflight' = Append(inflight, b)
          /\ fillLo' = fillLo + k
          /\ acked' = IF Variant = "ack_before_durable" THEN Max(acked, b.hi) ELSE acked
    /\ nextBid' = nextBid + 1
    /\ UNCHANGED <<srcNext, demand, fillHi, files, log, crashes, failures, done>>

WritePhase == IF Variant = "commit_before_write" THEN "committed" ELSE "sealed"
AfterWrite == IF Variant = "commit_before_write" THEN "durable" ELSE "written"

\* Spark writes the head batch's files (the write lane is serial, in id order).
Write ==
    /\ inflight # <<>> /\ inflight[1].phase = WritePhase
    /\ files' = files \cup {FileRec(inflight[1])}
    /\ inflight' = [inflight EXCEPT ![1].phase = AfterWrite]
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, nextBid, log, crashes, failures, done>>

\* A failed write leaves a partial file; the retry uses the next attempt number.
WriteFail ==
    /\ failures < MaxFailures
    /\ inflight # <<>> /\ inflight[1].phase = WritePhase
    /\ LET b == inflight[1] IN
         files' = files \cup {[FileRec(b) EXCEPT !.hi = b.lo + 1]}
    /\ inflight' = [inflight EXCEPT ![1].att = @ + 1]
    /\ failures' = failures + 1
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, nextBid, log, crashes, done>>

CommitPhase == IF Variant = "commit_before_write" THEN "sealed" ELSE "written"

\* The atomic commit record: the commit point.
Commit ==
    /\ Variant # "no_commit_log"
    /\ inflight # <<>> /\ inflight[1].phase = CommitPhase
    /\ log' = log \cup {FileRec(inflight[1])}
    /\ inflight' = [inflight EXCEPT ![1].phase = "committed"]
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, nextBid, files, crashes, failures, done>>

FreePhase == CASE Variant = "commit_before_write" -> "durable"
             []   Variant = "no_commit_log"       -> "written"
             []   OTHER                           -> "committed"

\* Acknowledge: the upstream may forget the batch; its rows become demand again.
Free ==
    /\ inflight # <<>> /\ inflight[1].phase = FreePhase
    /\ acked' = Max(acked, inflight[1].hi)
    /\ demand' = demand + (inflight[1].hi - inflight[1].lo)
    /\ inflight' = Tail(inflight)
    /\ UNCHANGED <<srcNext, fillLo, fillHi, nextBid, files, log, crashes, failures, done>>

Complete ==
    /\ ~done /\ srcNext = N /\ fillHi = fillLo /\ inflight = <<>>
    /\ done' = TRUE
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, inflight, nextBid, files, log,
                   crashes, failures>>

\* Crash and restart: memory is lost; recovery keeps only logged files and the
\* source resumes at the committed offset (it cannot go below what it was told
\* to forget).
Crash ==
    /\ ~done /\ crashes < MaxCrashes
    /\ LET resume == IF Variant = "no_commit_log" THEN acked ELSE Max(LogHi, acked)
       IN /\ srcNext' = resume
          /\ fillLo' = resume
          /\ fillHi' = resume
    /\ files' = IF Variant = "no_commit_log" THEN files ELSE View
    /\ demand' = Cap
    /\ inflight' = <<>>
    /\ nextBid' = Cardinality(log)
    /\ crashes' = crashes + 1
    /\ UNCHANGED <<acked, log, failures, done>>

Next == Deliver \/ Seal \/ Write \/ WriteFail \/ Commit \/ Free \/ Complete \/ Crash

Spec == Init /\ [][Next]_vars

(* ------------------------------ invariants ---------------------------- *)
TypeOK ==
    /\ srcNext \in 0..N /\ acked \in 0..N /\ demand \in 0..Cap
    /\ fillLo <= fillHi /\ Len(inflight) <= 2
    /\ crashes <= MaxCrashes /\ failures <= MaxFailures

\* No record is ever visible twice.
SinkNoDuplicateInv == \A r \in 1..N : Count(r) <= 1

\* When the stream is done, every record is visible.
SinkNoLossInv == done => \A r \in 1..N : Count(r) >= 1

\* Demand is the free buffer: buffered + outstanding <= capacity.
SinkBufferBoundInv == (fillHi - fillLo) + InflightRows + demand <= Cap

\* Whatever the upstream was told is safe is visible exactly once.
SinkDurableBeforeAckInv == \A r \in 1..acked : Count(r) = 1

\* A commit record never names data that is not there.
SinkCommitImpliesDataInv == \A l \in log : l \in files
=============================================================================
