---------------------------- MODULE SparkSink ----------------------------
(***************************************************************************)
(* The commit protocol of reactive_streams.spark.SparkSink, with crash and *)
(* restart, for a pipeline that changes the record count.                  *)
(*                                                                         *)
(* A replayable source has positions 1..N.  A filter keeps the records in  *)
(* Keep: with FilterMode "drop" (Flow.filter) a rejected record never      *)
(* reaches the sink; with "skip" (keep_if) it arrives as an element with   *)
(* no row.  The sink fills batches of at most B elements, keeps at most    *)
(* two sealed batches in flight, and per batch (in batch-id order) does    *)
(*   Write  : durable data files (may fail, leaving a partial file, and is *)
(*            retried under a new attempt number)                          *)
(*   Commit : the atomic commit record naming run, batch, attempt, rows    *)
(*            and the SOURCE POSITION after the batch's last element       *)
(*   Free   : acknowledge: the upstream may forget records up to that      *)
(*            position, and the freed buffer becomes demand again.         *)
(* Readers see the files the log names (recovery deletes the rest).  A     *)
(* crash loses memory; files, log and the upstream's acknowledged position *)
(* survive, and the restarted sink replays the source from the committed   *)
(* position.  Latency: a timer may seal a partial batch when no write is   *)
(* in flight.                                                              *)
(* Completes: the source signals completion after position N (else the    *)
(* stream stays open, and only the timer can flush the last records).      *)
(*                                                                         *)
(* This is the correct protocol only.  MCSparkSink.tla holds its defects *)
(* (the kill table of spec/models.toml): a record storing the sink's      *)
(* count, a commit before the write, no commit log, an acknowledgement at *)
(* seal, no fence, a sink with no latency timer, and more; each replaces  *)
(* one operator below and must be caught by its named target.             *)
(*                                                                         *)
(* A second writer (issue 26.2): Takeover starts a new writer on the same  *)
(* sink id while the old one still runs; the old one becomes a zombie     *)
(* holding its head batch, which it may still write and try to commit     *)
(* (create-if-absent on the batch id).  The new writer recovers from the  *)
(* log like a restart and first creates a FENCE record (no rows) at the   *)
(* next batch id, so the zombie's commit finds its id taken and is        *)
(* refused.                                                                *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS N, B, Keep, FilterMode, Latency, Completes, MaxCrashes, MaxFailures, MaxTakeovers

ASSUME N \in Nat /\ B \in Nat \ {0} /\ MaxCrashes \in Nat /\ MaxFailures \in Nat
ASSUME Keep \subseteq 1..N /\ FilterMode \in {"drop", "skip"}
ASSUME Latency \in BOOLEAN /\ Completes \in BOOLEAN
ASSUME MaxTakeovers \in Nat

Cap == 2 * B                         \* buffer capacity in elements: two batches

VARIABLES
    srcNext,    \* the source has read positions 1..srcNext in this run
    acked,      \* the upstream was told positions 1..acked are safe
    demand,     \* outstanding demand (requested, not delivered)
    fillLo,     \* the filling batch holds the elements of positions fillLo+1..fillHi
    fillHi,
    sealedCnt,  \* elements the sink has sealed (its own count, across runs)
    inflight,   \* sealed, not yet freed batches, oldest first
    nextBid,    \* id of the next sealed batch
    files,      \* durable data files
    log,        \* commit records
    crashes,
    failures,
    done,
    zombie,     \* the taken-over writer's head batch, or NoZombie
    takeovers

vars == <<srcNext, acked, demand, fillLo, fillHi, sealedCnt, inflight, nextBid, files, log,
          crashes, failures, done, zombie, takeovers>>
zvars == <<zombie, takeovers>>
NoZombie == [phase |-> "none"]

Max(a, b) == IF a > b THEN a ELSE b
Min(a, b) == IF a < b THEN a ELSE b
MaxOf(S) == IF S = {} THEN 0 ELSE CHOOSE m \in S : \A s \in S : s <= m

\* Does position p reach the sink as an element (a row or a skip)?
Delivered(p) == FilterMode = "skip" \/ p \in Keep
\* Elements and rows of the positions lo+1..hi.
Slots(lo, hi) == Cardinality({p \in lo + 1..hi : Delivered(p)})
Rows(lo, hi) == {p \in lo + 1..hi : p \in Keep}

InflightSlots == LET F[i \in 0..Len(inflight)] ==
                       IF i = 0 THEN 0 ELSE F[i - 1] + inflight[i].chi - inflight[i].clo
                 IN F[Len(inflight)]

\* What the commit record says a replay resumes from.
Res(b) == b.hi

\* A run is one writer's life: a restart or a takeover starts the next one.
Run == crashes + takeovers
FileRec(b) == [run |-> Run, bid |-> b.bid, att |-> b.att, rows |-> Rows(b.lo, b.hi)]
LogRec(b) == [run |-> Run, bid |-> b.bid, att |-> b.att, rows |-> Rows(b.lo, b.hi),
              res |-> Res(b), cnt |-> b.chi, fence |-> FALSE]

LogRes == MaxOf({l.res : l \in log})
LogCnt == MaxOf({l.cnt : l \in log})

Names(f, l) == l.run = f.run /\ l.bid = f.bid /\ l.att = f.att /\ l.rows = f.rows

\* What a reader sees: the files the commit log names (every file without a log).
View == {f \in files : \E l \in log : Names(f, l)}

Count(p) == Cardinality({f \in View : p \in f.rows})

(* ---------------------------------------------------------------------- *)
Init ==
    /\ srcNext = 0
    /\ acked = 0
    /\ demand = Cap
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
    /\ zombie = NoZombie
    /\ takeovers = 0

\* The source delivers the next element (rule 1.1: only within demand).
Deliver ==
    /\ ~done /\ demand > 0 /\ srcNext < N /\ Delivered(srcNext + 1)
    /\ srcNext' = srcNext + 1
    /\ fillHi' = srcNext + 1
    /\ demand' = demand - 1
    /\ UNCHANGED <<acked, fillLo, sealedCnt, inflight, nextBid, files, log, crashes, failures,
                   done>>
    /\ UNCHANGED zvars

\* Flow.filter rejects the next record: it never reaches the sink.
Drop ==
    /\ ~done /\ srcNext < N /\ ~Delivered(srcNext + 1)
    /\ srcNext' = srcNext + 1
    /\ UNCHANGED <<acked, demand, fillLo, fillHi, sealedCnt, inflight, nextBid, files, log,
                   crashes, failures, done>>
    /\ UNCHANGED zvars

\* The upstream learns nothing at seal: a batch is acknowledged only once committed.
AckAtSeal(b) == acked

\* The latency timer is configured (max_latency): it fires on a partial batch.
Timer == Latency

\* A full batch, the rest at completion, or (timer) a partial batch when no write
\* is in flight is sealed.
Seal ==
    /\ fillHi > fillLo
    /\ Len(inflight) < 2
    /\ LET s == Slots(fillLo, fillHi) IN
       /\ s >= B \/ (Completes /\ srcNext = N) \/ (Timer /\ inflight = <<>>)
       /\ LET k == Min(B, s)
              h == CHOOSE h \in fillLo + 1..fillHi : Delivered(h) /\ Slots(fillLo, h) = k
              b == [bid |-> nextBid, att |-> 0, lo |-> fillLo, hi |-> h,
                    clo |-> sealedCnt, chi |-> sealedCnt + k, phase |-> "sealed"]
          IN /\ inflight' = Append(inflight, b)
             /\ fillLo' = h
             /\ sealedCnt' = sealedCnt + k
             /\ acked' = AckAtSeal(b)
    /\ nextBid' = nextBid + 1
    /\ UNCHANGED <<srcNext, demand, fillHi, files, log, crashes, failures, done>>
    /\ UNCHANGED zvars

\* The phases a batch passes: sealed -> (Write) written -> (Commit) committed -> Free.
WritePhase == "sealed"
AfterWrite == "written"

\* Spark writes the head batch's files (the write lane is serial, in id order).
Write ==
    /\ inflight # <<>> /\ inflight[1].phase = WritePhase
    /\ files' = files \cup {FileRec(inflight[1])}
    /\ inflight' = [inflight EXCEPT ![1].phase = AfterWrite]
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, sealedCnt, nextBid, log, crashes,
                   failures, done>>
    /\ UNCHANGED zvars

\* A failed write leaves a partial file; the retry uses the next attempt number.
WriteFail ==
    /\ failures < MaxFailures
    /\ inflight # <<>> /\ inflight[1].phase = WritePhase
    /\ LET b == inflight[1] IN
         files' = files \cup {[FileRec(b) EXCEPT !.rows = Rows(b.lo, b.lo + 1)]}
    /\ inflight' = [inflight EXCEPT ![1].att = @ + 1]
    /\ failures' = failures + 1
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, sealedCnt, nextBid, log, crashes,
                   done>>
    /\ UNCHANGED zvars

CommitPhase == "written"

\* The atomic commit record: the commit point.
Commit ==
    /\ inflight # <<>> /\ inflight[1].phase = CommitPhase
    /\ ~\E l \in log : l.bid = inflight[1].bid      \* create-if-absent
    /\ log' = log \cup {LogRec(inflight[1])}
    /\ inflight' = [inflight EXCEPT ![1].phase = "committed"]
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, sealedCnt, nextBid, files, crashes,
                   failures, done>>
    /\ UNCHANGED zvars

FreePhase == "committed"

\* Acknowledge: the upstream may forget the batch; its elements become demand again.
Free ==
    /\ inflight # <<>> /\ inflight[1].phase = FreePhase
    /\ acked' = Max(acked, Res(inflight[1]))
    /\ demand' = demand + (inflight[1].chi - inflight[1].clo)
    /\ inflight' = Tail(inflight)
    /\ UNCHANGED <<srcNext, fillLo, fillHi, sealedCnt, nextBid, files, log, crashes, failures,
                   done>>
    /\ UNCHANGED zvars

Complete ==
    /\ Completes /\ ~done /\ srcNext = N /\ fillHi = fillLo /\ inflight = <<>>
    /\ done' = TRUE
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, sealedCnt, inflight, nextBid, files,
                   log, crashes, failures>>
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

\* Crash and restart: memory is lost; recovery keeps only logged files and the
\* source replays from the committed position (it cannot go below what it was
\* told to forget).
Crash ==
    /\ ~done /\ crashes < MaxCrashes
    /\ LET resume == Resume
       IN /\ srcNext' = resume
          /\ fillLo' = resume
          /\ fillHi' = resume
    /\ files' = View
    /\ sealedCnt' = LogCnt
    /\ demand' = Cap
    /\ inflight' = <<>>
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
    /\ ~done /\ takeovers < MaxTakeovers /\ zombie = NoZombie
    /\ LET resume == Resume
           fence == FenceRec(Run + 1, Cardinality(log))
           log2 == Fenced(fence)
       IN /\ srcNext' = resume
          /\ fillLo' = resume
          /\ fillHi' = resume
          /\ log' = log2
          /\ nextBid' = Cardinality(log2)
    /\ zombie' = IF inflight # <<>> /\ inflight[1].phase \in {"sealed", "written"}
                 THEN LET b == inflight[1]
                      IN [run |-> Run, bid |-> b.bid, att |-> b.att, lo |-> b.lo, hi |-> b.hi,
                          chi |-> b.chi, phase |-> b.phase]
                 ELSE NoZombie
    /\ files' = View
    /\ sealedCnt' = LogCnt
    /\ demand' = Cap
    /\ inflight' = <<>>
    /\ takeovers' = takeovers + 1
    /\ UNCHANGED <<acked, crashes, failures, done>>

ZombieRec(z) == [run |-> z.run, bid |-> z.bid, att |-> z.att, rows |-> Rows(z.lo, z.hi)]

\* The zombie still writes its batch's files (they are garbage to every reader).
ZombieWrite ==
    /\ zombie.phase = "sealed"
    /\ files' = files \cup {ZombieRec(zombie)}
    /\ zombie' = [zombie EXCEPT !.phase = "written"]
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, sealedCnt, inflight, nextBid, log,
                   crashes, failures, done, takeovers>>

\* The zombie commits with create-if-absent: only if no record holds its batch id;
\* a record there (the fence) refuses it, and the zombie stops with LeaseLost.
ZombieCommit ==
    /\ zombie.phase = "written"
    /\ IF \E l \in log : l.bid = zombie.bid
          THEN /\ zombie' = [zombie EXCEPT !.phase = "refused"]
               /\ UNCHANGED log
          ELSE /\ log' = log \cup {[run |-> zombie.run, bid |-> zombie.bid, att |-> zombie.att,
                                    rows |-> Rows(zombie.lo, zombie.hi), res |-> Res(zombie),
                                    cnt |-> zombie.chi, fence |-> FALSE]}
               /\ zombie' = [zombie EXCEPT !.phase = "committed"]
    /\ UNCHANGED <<srcNext, acked, demand, fillLo, fillHi, sealedCnt, inflight, nextBid, files,
                   crashes, failures, done, takeovers>>

Next == Deliver \/ Drop \/ Seal \/ Write \/ WriteFail \/ Commit \/ Free \/ Complete
        \/ Quiescent \/ Crash \/ Takeover \/ ZombieWrite \/ ZombieCommit

Spec == Init /\ [][Next]_vars

\* Every step of the sink and the source is weakly fair; failures and crashes are
\* bounded and need no fairness.
Fairness == WF_vars(Deliver) /\ WF_vars(Drop) /\ WF_vars(Seal) /\ WF_vars(Write)
            /\ WF_vars(Commit) /\ WF_vars(Free) /\ WF_vars(Complete)
FairSpec == Spec /\ Fairness

(* ------------------------------ invariants ---------------------------- *)
TypeOK ==
    /\ srcNext \in 0..N /\ acked \in 0..N /\ demand \in 0..Cap
    /\ fillLo <= fillHi /\ fillHi <= srcNext /\ Len(inflight) <= 2
    /\ crashes <= MaxCrashes /\ failures <= MaxFailures

\* No record is ever visible twice.
SinkNoDuplicateInv == \A p \in 1..N : Count(p) <= 1

\* When the stream is done, every kept record is visible, and nothing else.
SinkNoLossInv == done => \A p \in 1..N : Count(p) = IF p \in Keep THEN 1 ELSE 0

\* Demand is the free buffer: buffered + outstanding <= capacity.
SinkBufferBoundInv == Slots(fillLo, fillHi) + InflightSlots + demand <= Cap

\* Whatever the upstream was told is safe is visible exactly once.
SinkDurableBeforeAckInv == \A p \in Keep : p <= acked => Count(p) = 1

\* A commit record never names data that is not there.
SinkCommitImpliesDataInv == \A l \in log : l.fence \/ \E f \in files : Names(f, l)

\* The committed position says exactly which kept records are visible: a replay
\* from it neither repeats nor skips one.
SinkResumeMatchesViewInv == \A p \in Keep : Count(p) = IF p <= LogRes THEN 1 ELSE 0

(* ------------------------------ liveness ------------------------------ *)
\* Every kept record offered is eventually committed (the model has no error
\* path: failures are retried, crashes are replayed).
SinkEventuallyCommitted == \A p \in Keep : <>(Count(p) = 1)

\* A completing stream finishes: every batch is committed and acknowledged
\* (Complete waits for that) and the sink is done, so SinkNoLossInv, guarded
\* by done, is checked at the end of every behaviour.
SinkFinishesProp == Completes => <>done
=============================================================================
