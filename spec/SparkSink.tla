---------------------------- MODULE SparkSink ----------------------------
(***************************************************************************)
(* The commit protocol of reactive_streams.spark.SparkSink, with crash and *)
(* restart, for a pipeline that changes the record count.                  *)
(*                                                                         *)
(* A replayable source has positions 1..N; a record has 1 byte, those at *)
(* the positions in Large LargeSize bytes.  A filter keeps the records in Keep: with FilterMode "drop"      *)
(* (Flow.filter) a rejected record never reaches the sink; with "skip"     *)
(* (keep_if) it arrives as an element with no row and no bytes.            *)
(*                                                                         *)
(* Demand is the free buffer, in records and in bytes (issue 42): the sink *)
(* requests (Request) at most its free records and, against an estimate   *)
(* per record (est: the first record's size, then up at once to a larger  *)
(* one and down slowly), at most what fits in ByteCap = 2 * BB bytes with *)
(* what it holds, in slices of at most Slice records; the first request    *)
(* is one record (to measure), and with nothing held in flight one record  *)
(* alone is asked even when larger than the budget.  It fills batches of  *)
(* at most B elements and BB bytes (a batch passes BB only as a single    *)
(* record), sealed on a running byte count, keeps at most two sealed       *)
(* batches in flight, and per batch (in batch-id order) does               *)
(*   Write   : data files in the batch's hidden staging directory (may     *)
(*             fail, leaving a partial file; retried under a new attempt)  *)
(*   Commit  : the atomic commit record naming run, batch, attempt, rows   *)
(*             and the SOURCE POSITION after the batch's last element      *)
(*   Publish : the staging directory is renamed to the batch directory     *)
(*   Free    : acknowledge: the upstream may forget records up to that     *)
(*             position, and the freed buffer may be requested again.      *)
(* A crash loses memory; files, log and the upstream's acknowledged        *)
(* position survive.  Recovery deletes the files no record names, renames  *)
(* every committed batch still in staging (roll-forward), and the source   *)
(* replays from the committed position.  Readers: read_committed          *)
(* (ReadView) reads the published batches in batch order up to the first  *)
(* committed one not yet published, never a staging directory.            *)
(* Latency: a timer may seal a partial batch when no write is in flight.  *)
(* Completes: the source signals completion after position N (else the    *)
(* stream stays open, and only the timer can flush the last records).      *)
(*                                                                         *)
(* This is the correct protocol only.  MCSparkSink.tla holds its defects *)
(* (the kill table of spec/models.toml): a record storing the sink's      *)
(* count, a commit before the write, no commit log, an acknowledgement at *)
(* seal or before the rename, no fence, no latency timer, demand counted  *)
(* in records only, a reader of staging directories, and more; each       *)
(* replaces one operator below and must be caught by its named target.    *)
(*                                                                         *)
(* A second writer (issue 26.2): Takeover starts a new writer on the same  *)
(* sink id while the old one still runs; the old one becomes a zombie     *)
(* holding its head batch, which it may still write and try to commit     *)
(* (create-if-absent on the batch id).  The new writer recovers from the  *)
(* log like a restart and first creates a FENCE record (no rows) at the   *)
(* next batch id, so the zombie's commit finds its id taken and is        *)
(* refused.  A takeover may come while a zombie still runs, so several    *)
(* zombies (of different runs) may act at once (issue 39).                *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS N, B, Keep, FilterMode, Latency, Completes, MaxCrashes, MaxFailures, MaxTakeovers,
          Large, LargeSize, BB, Slice

ASSUME N \in Nat /\ B \in Nat \ {0} /\ MaxCrashes \in Nat /\ MaxFailures \in Nat
ASSUME Keep \subseteq 1..N /\ FilterMode \in {"drop", "skip"}
ASSUME Latency \in BOOLEAN /\ Completes \in BOOLEAN
ASSUME MaxTakeovers \in Nat
ASSUME Large \subseteq 1..N /\ LargeSize \in Nat \ {0} /\ BB \in Nat \ {0} /\ Slice \in Nat \ {0}

Cap == 2 * B                         \* buffer capacity in elements: two batches
ByteCap == 2 * BB                    \* and in bytes (byte_capacity = 2 * batch_bytes)

VARIABLES
    srcNext,    \* the source has read positions 1..srcNext in this run
    acked,      \* the upstream was told positions 1..acked are safe
    demand,     \* outstanding demand (requested, not delivered)
    est,        \* the sink's estimate of one record's bytes (0: none seen this run)
    asked,      \* held + demand * est right after the last request (what it counted on)
    fillLo,     \* the filling batch holds the elements of positions fillLo+1..fillHi
    fillHi,
    sealedCnt,  \* elements the sink has sealed (its own count, across runs)
    inflight,   \* sealed, not yet freed batches, oldest first
    nextBid,    \* id of the next sealed batch
    files,      \* durable data files (pub: renamed out of staging)
    log,        \* commit records
    crashes,
    failures,
    done,
    zombies,    \* the taken-over writers still running: each one's head batch
    takeovers

vars == <<srcNext, acked, demand, est, asked, fillLo, fillHi, sealedCnt, inflight, nextBid,
          files, log, crashes, failures, done, zombies, takeovers>>
zvars == <<zombies, takeovers>>
bvars == <<demand, est, asked>>       \* the budget: demand and what it was counted on

Max(a, b) == IF a > b THEN a ELSE b
Min(a, b) == IF a < b THEN a ELSE b
MaxOf(S) == IF S = {} THEN 0 ELSE CHOOSE m \in S : \A s \in S : s <= m

\* Does position p reach the sink as an element (a row or a skip)?
Delivered(p) == FilterMode = "skip" \/ p \in Keep
\* The bytes the sink counts for position p: a skip has none.
Size(p) == IF p \in Large THEN LargeSize ELSE 1
Sz(p) == IF p \in Keep THEN Size(p) ELSE 0
MaxSize == MaxOf({Size(p) : p \in 1..N})
\* Elements, rows and bytes of the positions lo+1..hi.
Slots(lo, hi) == Cardinality({p \in lo + 1..hi : Delivered(p)})
Rows(lo, hi) == {p \in lo + 1..hi : p \in Keep}
Bytes(lo, hi) == LET F[i \in lo..hi] == IF i = lo THEN 0 ELSE F[i - 1] + Sz(i) IN F[hi]

InflightSlots == LET F[i \in 0..Len(inflight)] ==
                       IF i = 0 THEN 0 ELSE F[i - 1] + inflight[i].chi - inflight[i].clo
                 IN F[Len(inflight)]
InflightBytes == LET F[i \in 0..Len(inflight)] ==
                       IF i = 0 THEN 0 ELSE F[i - 1] + Bytes(inflight[i].lo, inflight[i].hi)
                 IN F[Len(inflight)]
FillBytes == Bytes(fillLo, fillHi)
\* The bytes the sink holds: received and not yet acknowledged (held_bytes).
Held == FillBytes + InflightBytes

\* What the commit record says a replay resumes from.
Res(b) == b.hi

\* A run is one writer's life: a restart or a takeover starts the next one.
Run == crashes + takeovers
FileRec(b) == [run |-> Run, bid |-> b.bid, att |-> b.att, rows |-> Rows(b.lo, b.hi),
               pub |-> FALSE]
LogRec(b) == [run |-> Run, bid |-> b.bid, att |-> b.att, rows |-> Rows(b.lo, b.hi),
              res |-> Res(b), cnt |-> b.chi, fence |-> FALSE]

LogRes == MaxOf({l.res : l \in log})
LogCnt == MaxOf({l.cnt : l \in log})

Names(f, l) == l.run = f.run /\ l.bid = f.bid /\ l.att = f.att /\ l.rows = f.rows

\* The committed data: the files the commit log names, staged or published.
View == {f \in files : \E l \in log : Names(f, l)}
Count(p) == Cardinality({f \in View : p \in f.rows})

\* Batch ids committed whose data is still in staging (not yet renamed).
Unpublished == {f.bid : f \in {g \in View : ~g.pub}}
\* What read_committed returns: the published committed batches in batch order up to
\* the first committed batch not yet published (commit_log.committed_files).
ReadView == {f \in View : f.pub /\ \A u \in Unpublished : f.bid < u}
ReadCount(p) == Cardinality({f \in ReadView : p \in f.rows})

\* Rename every committed batch still in staging to its batch directory.
Published(fs, l) == {IF Names(f, l) THEN [f EXCEPT !.pub = TRUE] ELSE f : f \in fs}
\* Recovery: the files no record names are deleted, committed staging is rolled forward.
Recovered == {[f EXCEPT !.pub = TRUE] : f \in View}

(* ---------------------------------------------------------------------- *)
Init ==
    /\ srcNext = 0
    /\ acked = 0
    /\ demand = 0
    /\ est = 0
    /\ asked = 0
    /\ fillLo = 0
    /\ fillHi = 0
    /\ sealedCnt = 0
    /\ inflight = <<>>
    /\ nextBid = 0
    /\ files = {}
    /\ log = {}
    /\ crashes = 0
    /\ failures = 0
    /\ done = FALSE
    /\ zombies = {}
    /\ takeovers = 0

\* The filling batch cannot take one more record of the estimated size (_full_locked).
Full == Slots(fillLo, fillHi) >= B \/ (fillHi > fillLo /\ FillBytes + est > BB)

\* How many records the sink asks for now (_request_free): its free records, and
\* what fits in the free bytes at est per record, in slices; one record first (to
\* measure); one record alone when nothing is outstanding, in flight or full.
FreeRecords == Cap - Slots(fillLo, fillHi) - InflightSlots - demand
FitBytes == IF Held + demand * est >= ByteCap THEN 0
            ELSE (ByteCap - Held - demand * est) \div est
Fit == IF est = 0 THEN Min(FreeRecords, 1 - demand)
       ELSE Min(FreeRecords, Min(FitBytes, Slice - demand))
Ask == IF Fit > 0 THEN Fit
       ELSE IF demand > 0 \/ inflight # <<>> \/ Full THEN 0
       ELSE Min(1, Cap - Slots(fillLo, fillHi))

\* The sink requests (at subscription, as demand runs low, after a commit frees room).
Request ==
    /\ ~done /\ srcNext < N /\ Ask > 0
    /\ demand' = demand + Ask
    /\ asked' = IF Fit > 0 THEN Held + demand' * est ELSE 0   \* else one record alone
    /\ UNCHANGED <<srcNext, acked, est, fillLo, fillHi, sealedCnt, inflight, nextBid, files,
                   log, crashes, failures, done>>
    /\ UNCHANGED zvars

\* The estimate per record after one of s bytes: up at once, down by a sixteenth.
NextEst(s) == IF s > est THEN s ELSE IF s < est THEN est - ((est - s + 15) \div 16) ELSE est

\* The source delivers the next element (rule 1.1: only within demand).
Deliver ==
    /\ ~done /\ demand > 0 /\ srcNext < N /\ Delivered(srcNext + 1)
    /\ srcNext' = srcNext + 1
    /\ fillHi' = srcNext + 1
    /\ demand' = demand - 1
    /\ est' = NextEst(Sz(srcNext + 1))
    /\ UNCHANGED <<acked, asked, fillLo, sealedCnt, inflight, nextBid, files, log, crashes,
                   failures, done>>
    /\ UNCHANGED zvars

\* Flow.filter rejects the next record: it never reaches the sink.
Drop ==
    /\ ~done /\ srcNext < N /\ ~Delivered(srcNext + 1)
    /\ srcNext' = srcNext + 1
    /\ UNCHANGED <<acked, fillLo, fillHi, sealedCnt, inflight, nextBid, files, log,
                   crashes, failures, done>>
    /\ UNCHANGED bvars
    /\ UNCHANGED zvars

\* The upstream learns nothing at seal: a batch is acknowledged only once published.
AckAtSeal(b) == acked

\* The latency timer is configured (max_latency): it fires on a partial batch.
Timer == Latency

\* Where the next batch ends (_cut_locked): at most B elements and BB bytes, or the
\* first element alone.
Cut(lo, hi) == MaxOf({h \in lo + 1..hi : Delivered(h) /\ Slots(lo, h) <= B
                                          /\ (Bytes(lo, h) <= BB \/ Slots(lo, h) = 1)})

\* A full batch (in elements or on the running byte count), the rest at completion,
\* or (timer) a partial batch when no write is in flight is sealed.
Seal ==
    /\ fillHi > fillLo
    /\ Len(inflight) < 2
    /\ Full \/ (Completes /\ srcNext = N) \/ (Timer /\ inflight = <<>>)
    /\ LET h == Cut(fillLo, fillHi)
           k == Slots(fillLo, h)
           b == [bid |-> nextBid, att |-> 0, lo |-> fillLo, hi |-> h,
                 clo |-> sealedCnt, chi |-> sealedCnt + k, phase |-> "sealed"]
       IN /\ inflight' = Append(inflight, b)
          /\ fillLo' = h
          /\ sealedCnt' = sealedCnt + k
          /\ acked' = AckAtSeal(b)
    /\ nextBid' = nextBid + 1
    /\ UNCHANGED <<srcNext, fillHi, files, log, crashes, failures, done>>
    /\ UNCHANGED bvars
    /\ UNCHANGED zvars

\* The phases a batch passes: sealed -> (Write) written -> (Commit) committed
\* -> (Publish) published -> Free.
WritePhase == "sealed"
AfterWrite == "written"

\* Spark writes the head batch's files into staging (the write lane is serial).
Write ==
    /\ inflight # <<>> /\ inflight[1].phase = WritePhase
    /\ files' = files \cup {FileRec(inflight[1])}
    /\ inflight' = [inflight EXCEPT ![1].phase = AfterWrite]
    /\ UNCHANGED <<srcNext, acked, fillLo, fillHi, sealedCnt, nextBid, log, crashes,
                   failures, done>>
    /\ UNCHANGED bvars
    /\ UNCHANGED zvars

\* A failed write leaves a partial file; the retry uses the next attempt number.
WriteFail ==
    /\ failures < MaxFailures
    /\ inflight # <<>> /\ inflight[1].phase = WritePhase
    /\ LET b == inflight[1] IN
         files' = files \cup {[FileRec(b) EXCEPT !.rows = Rows(b.lo, b.lo + 1)]}
    /\ inflight' = [inflight EXCEPT ![1].att = @ + 1]
    /\ failures' = failures + 1
    /\ UNCHANGED <<srcNext, acked, fillLo, fillHi, sealedCnt, nextBid, log, crashes, done>>
    /\ UNCHANGED bvars
    /\ UNCHANGED zvars

CommitPhase == "written"

\* The atomic commit record: the commit point.
Commit ==
    /\ inflight # <<>> /\ inflight[1].phase = CommitPhase
    /\ ~\E l \in log : l.bid = inflight[1].bid      \* create-if-absent
    /\ log' = log \cup {LogRec(inflight[1])}
    /\ inflight' = [inflight EXCEPT ![1].phase = "committed"]
    /\ UNCHANGED <<srcNext, acked, fillLo, fillHi, sealedCnt, nextBid, files, crashes,
                   failures, done>>
    /\ UNCHANGED bvars
    /\ UNCHANGED zvars

PublishPhase == "committed"

\* The rename of the committed batch's staging directory to its batch directory.
Publish ==
    /\ inflight # <<>> /\ inflight[1].phase = PublishPhase
    /\ files' = Published(files, LogRec(inflight[1]))
    /\ inflight' = [inflight EXCEPT ![1].phase = "published"]
    /\ UNCHANGED <<srcNext, acked, fillLo, fillHi, sealedCnt, nextBid, log, crashes,
                   failures, done>>
    /\ UNCHANGED bvars
    /\ UNCHANGED zvars

FreePhase == "published"

\* Acknowledge: the upstream may forget the batch; its room may be requested again.
Free ==
    /\ inflight # <<>> /\ inflight[1].phase = FreePhase
    /\ acked' = Max(acked, Res(inflight[1]))
    /\ inflight' = Tail(inflight)
    /\ UNCHANGED <<srcNext, fillLo, fillHi, sealedCnt, nextBid, files, log, crashes, failures,
                   done>>
    /\ UNCHANGED bvars
    /\ UNCHANGED zvars

Complete ==
    /\ Completes /\ ~done /\ srcNext = N /\ fillHi = fillLo /\ inflight = <<>>
    /\ done' = TRUE
    /\ UNCHANGED <<srcNext, acked, fillLo, fillHi, sealedCnt, inflight, nextBid, files,
                   log, crashes, failures>>
    /\ UNCHANGED bvars
    /\ UNCHANGED zvars

\* Nothing left to do: the stream completed, or an open stream's source has nothing
\* more to offer for now (it idles; a stall of the sink is then a liveness failure,
\* SinkEventuallyCommitted, not a state without successor).
Quiescent ==
    /\ done \/ (~Completes /\ srcNext = N)
    /\ UNCHANGED vars

\* Where a new run (a restart, a takeover) replays the source from: the committed
\* position (never below what the upstream was told to forget).
Resume == Max(LogRes, acked)

\* A new run's start: memory is lost; recovery keeps only logged files and renames
\* the committed ones still in staging, the source replays from the committed
\* position, and the new subscription has no demand and no estimate.
Restart ==
    /\ srcNext' = Resume
    /\ fillLo' = Resume
    /\ fillHi' = Resume
    /\ files' = Recovered
    /\ sealedCnt' = LogCnt
    /\ demand' = 0
    /\ est' = 0
    /\ asked' = 0
    /\ inflight' = <<>>

\* Crash and restart.
Crash ==
    /\ ~done /\ crashes < MaxCrashes
    /\ Restart
    /\ nextBid' = Cardinality(log)
    /\ crashes' = crashes + 1
    /\ UNCHANGED <<acked, log, failures, done>>
    /\ UNCHANGED zvars

\* The fence: a record of no rows and no files, marked so (recovery and readers
\* look for no data of it).
FenceRec(run, bid) == [run |-> run, bid |-> bid, att |-> 0, rows |-> {}, res |-> LogRes,
                       cnt |-> LogCnt, fence |-> TRUE]

\* The new writer's fence joins the log (create-if-absent at the next batch id).
Fenced(fence) == log \cup {fence}

\* A second writer starts on the same sink id while this one still runs (an
\* orchestrator retry, or a takeover of a lease thought stale).  The old writer
\* lives on as a zombie with its head batch; the new one recovers like a restart,
\* and fences the old one with a record of no rows at the next batch id.
Takeover ==
    /\ ~done /\ takeovers < MaxTakeovers
    /\ Restart
    /\ LET log2 == Fenced(FenceRec(Run + 1, Cardinality(log)))
       IN /\ log' = log2
          /\ nextBid' = Cardinality(log2)
    /\ zombies' = IF inflight # <<>> /\ inflight[1].phase \in {"sealed", "written"}
                  THEN LET b == inflight[1]
                       IN zombies \cup {[run |-> Run, bid |-> b.bid, att |-> b.att, lo |-> b.lo,
                                         hi |-> b.hi, chi |-> b.chi, phase |-> b.phase]}
                  ELSE zombies
    /\ takeovers' = takeovers + 1
    /\ UNCHANGED <<acked, crashes, failures, done>>

ZombieRec(z) == [run |-> z.run, bid |-> z.bid, att |-> z.att, rows |-> Rows(z.lo, z.hi),
                 pub |-> FALSE]

\* Zombie z moves to phase ph.
Moved(z, ph) == (zombies \ {z}) \cup {[z EXCEPT !.phase = ph]}

\* A zombie still writes its batch's files (they are garbage to every reader).
ZombieWrite == \E z \in zombies :
    /\ z.phase = "sealed"
    /\ files' = files \cup {ZombieRec(z)}
    /\ zombies' = Moved(z, "written")
    /\ UNCHANGED <<srcNext, acked, fillLo, fillHi, sealedCnt, inflight, nextBid, log,
                   crashes, failures, done, takeovers>>
    /\ UNCHANGED bvars

\* A zombie commits with create-if-absent: only if no record holds its batch id;
\* a record there (a fence) refuses it, and the zombie stops with LeaseLost.
ZombieCommit == \E z \in zombies :
    /\ z.phase = "written"
    /\ IF \E l \in log : l.bid = z.bid
          THEN /\ zombies' = Moved(z, "refused")
               /\ UNCHANGED log
          ELSE /\ log' = log \cup {[run |-> z.run, bid |-> z.bid, att |-> z.att,
                                    rows |-> Rows(z.lo, z.hi), res |-> Res(z),
                                    cnt |-> z.chi, fence |-> FALSE]}
               /\ zombies' = Moved(z, "committed")
    /\ UNCHANGED <<srcNext, acked, fillLo, fillHi, sealedCnt, inflight, nextBid, files,
                   crashes, failures, done, takeovers>>
    /\ UNCHANGED bvars

Next == Request \/ Deliver \/ Drop \/ Seal \/ Write \/ WriteFail \/ Commit \/ Publish
        \/ Free \/ Complete \/ Quiescent \/ Crash \/ Takeover \/ ZombieWrite \/ ZombieCommit

Spec == Init /\ [][Next]_vars

\* Every step of the sink and the source is weakly fair; failures and crashes are
\* bounded and need no fairness.
Fairness == WF_vars(Request) /\ WF_vars(Deliver) /\ WF_vars(Drop) /\ WF_vars(Seal)
            /\ WF_vars(Write) /\ WF_vars(Commit) /\ WF_vars(Publish) /\ WF_vars(Free)
            /\ WF_vars(Complete)
FairSpec == Spec /\ Fairness

(* ------------------------------ invariants ---------------------------- *)
TypeOK ==
    /\ srcNext \in 0..N /\ acked \in 0..N /\ demand \in 0..Cap /\ est \in 0..MaxSize
    /\ fillLo <= fillHi /\ fillHi <= srcNext /\ Len(inflight) <= 2
    /\ crashes <= MaxCrashes /\ failures <= MaxFailures

\* No record is ever visible twice.
SinkNoDuplicateInv == \A p \in 1..N : Count(p) <= 1

\* When the stream is done, a reader sees every kept record, and nothing else.
SinkNoLossInv == done => \A p \in 1..N : ReadCount(p) = IF p \in Keep THEN 1 ELSE 0

\* Demand is the free buffer: buffered + outstanding <= capacity.
SinkBufferBoundInv == Slots(fillLo, fillHi) + InflightSlots + demand <= Cap

\* Demand is the free buffer in bytes too (issue 42): every request counted on no
\* more than ByteCap (held + outstanding x estimate), so the sink holds at most
\* ByteCap plus what records larger than their estimate brought: at most one slice
\* of records (or the one record asked alone).
SinkByteBudgetInv ==
    /\ asked <= ByteCap
    /\ Held <= ByteCap + Slice * MaxSize

\* No batch passes BB bytes unless it is a single record.
SinkBatchBytesInv ==
    \A i \in 1..Len(inflight) : Bytes(inflight[i].lo, inflight[i].hi) <= BB
                                \/ inflight[i].chi - inflight[i].clo = 1

\* Whatever the upstream was told is safe a reader sees exactly once.
SinkDurableBeforeAckInv == \A p \in Keep : p <= acked => ReadCount(p) = 1

\* A commit record never names data that is not there.
SinkCommitImpliesDataInv == \A l \in log : l.fence \/ \E f \in files : Names(f, l)

\* The committed position says exactly which kept records are committed: a replay
\* from it neither repeats nor skips one.
SinkResumeMatchesViewInv == \A p \in Keep : Count(p) = IF p <= LogRes THEN 1 ELSE 0

\* A reader never sees a staging directory, and sees whole committed batches in
\* source order: the kept records up to some position, each once (a committed batch
\* not yet renamed is never mixed with published ones, issue 42).
SinkReadPrefixInv ==
    /\ \A f \in ReadView : f.pub
    /\ \E r \in 0..N : \A p \in Keep : ReadCount(p) = IF p <= r THEN 1 ELSE 0

(* ------------------------------ liveness ------------------------------ *)
\* Every kept record offered is eventually committed (the model has no error
\* path: failures are retried, crashes are replayed).
SinkEventuallyCommitted == \A p \in Keep : <>(Count(p) = 1)

\* A completing stream finishes: every batch is committed and acknowledged
\* (Complete waits for that) and the sink is done, so SinkNoLossInv, guarded
\* by done, is checked at the end of every behaviour.
SinkFinishesProp == Completes => <>done
=============================================================================
