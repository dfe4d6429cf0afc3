-------------------------- MODULE ReactiveStreams --------------------------
(***************************************************************************)
(* Reactive Streams 1.0.4, one Publisher and the Subscriptions it serves.  *)
(*                                                                         *)
(* Each Subscription s \in Subs links the Publisher to its own Subscriber  *)
(* (unicast, rule 1.11).  Signals travel through two channels:             *)
(*   up[s]    request(n) and cancel, Subscriber -> Publisher (a FIFO),     *)
(*   sent[s]  onSubscribe, onNext, onError, onComplete, Publisher ->       *)
(*            Subscriber: the history of committed signals; the first      *)
(*            delivered[s] of them have been handed to the Subscriber, the *)
(*            rest are in flight.                                          *)
(* The Publisher observes a cancel only when the message arrives           *)
(* (RecvCancel), so "eventually stop" (1.8) and "be prepared for onNext    *)
(* after cancel" (2.8) are real states.                                    *)
(*                                                                         *)
(* Calls have a beginning and an end, on a thread: the Subscriber's on*    *)
(* methods, and its request()/cancel() calls on the Subscription.          *)
(* stack[s][th] is the stack of such calls open on thread th, innermost    *)
(* last.  A signal begun on the thread of an open request() call is        *)
(* nesting (3.2, 3.10, 3.11): legal, with at most Depth onNext frames open *)
(* at once on one stack (3.3); no rule lets cancel() signal.  A signal     *)
(* begun while another thread runs a signal of the same Subscriber is      *)
(* concurrent: forbidden (1.3).  Two threads inside request()/cancel() at  *)
(* once are forbidden (2.7).                                               *)
(* With Sync = TRUE a request or a cancel is received, and a committed     *)
(* signal delivered, before anything else happens on that Subscription.    *)
(*                                                                         *)
(* Every action is one event of the implementation's trace (docs/spec.md). *)
(*                                                                         *)
(* Not modelled: element values (only their sequence numbers), Processors  *)
(* (4.x), exact 64-bit demand (MaxDemand stands for 2^63-1; the Python     *)
(* side tests the arithmetic), and the same Subscriber subscribed twice    *)
(* (2.12): every subscribe call creates a fresh Subscription whose         *)
(* Subscriber is its own, because rule 1.10 forbids the caller to reuse    *)
(* one and a trace cannot tell two Subscriptions of one Subscriber from    *)
(* two Subscribers.  Spec212 therefore checks "onSubscribe at most once    *)
(* per Subscription".  Model-checking bounds and the deliberate defects of *)
(* the mutation models live in MCReactiveStreams.tla.                      *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Subs,         \* Subscription ids (the trace's "sub"), one Subscriber each
    Threads,      \* thread ids that call the Subscriber or the Subscription
    Depth,        \* bound on onNext frames open at once on one thread (3.3)
    Elements,     \* the source has at most this many elements per Subscription
    Sizes,        \* the n a Subscriber may pass to request(n), invalid ones included
    MaxDemand,    \* stands for 2^63-1: "effectively unbounded" demand (3.17)
    MaxCalls,     \* bound on request() calls per Subscription (keeps TLC finite)
    MaxCancels,   \* bound on cancel() calls per Subscription (2 shows 3.5 and 3.7)
    QueueBound,   \* bound on messages in flight per direction and Subscription
    Sync,         \* TRUE: requests received and signals delivered at once (3.10)
    EarlyEnd,     \* TRUE: the source may complete before Elements (1.2)
    SourceFails,  \* TRUE: the source may fail at any point (1.4)
    Raises        \* TRUE: a Subscriber's on* method may raise (2.13)

ASSUME Elements \in Nat /\ MaxDemand \in Nat /\ MaxDemand > Elements
ASSUME MaxDemand <= 2147483647 - Elements   \* Cap fits in TLC's 32-bit integers
ASSUME Sizes \subseteq Int /\ \A n \in Sizes : n <= MaxDemand
ASSUME MaxCalls \in Nat /\ MaxCancels \in Nat \ {0} /\ QueueBound \in Nat \ {0}
ASSUME Depth \in Nat \ {0} /\ Threads # {}
ASSUME {Sync, EarlyEnd, SourceFails, Raises} \subseteq BOOLEAN

VARIABLES
    pub,        \* Publisher's view of s: "idle" (no subscribe yet), "subscribed",
                \*   "active" (onSubscribe committed), "completed", "failed", "cancelled"
    emitted,    \* elements taken from the source for s (the next onNext's seq - 1)
    demand,     \* outstanding demand as the Publisher counts it (MaxDemand = unbounded)
    requested,  \* ghost: sum of the valid n the Publisher received; Cap once the
                \*   outstanding demand has reached MaxDemand ("unbounded", 3.17)
    invalidAt,  \* -1, or Len(sent[s]) when the Publisher received request(n <= 0) (3.9)
    asked,      \* ghost: a request(n <= 0) was sent towards the Publisher (3.9)
    awake,      \* the drain loop is scheduled (FALSE: it sleeps until a request wakes it)
    ref,        \* the Publisher holds a reference to the Subscriber (3.13)
    cutoff,     \* ghost: -1, or Len(sent[s]) when the cancel was received (3.12)
    up,         \* FIFO of [type |-> "request"|"cancel", n |-> Int] towards the Publisher
    sent,       \* committed signals [sig, seq, err], in commit order
    delivered,  \* how many of sent[s] the Subscriber has begun to process
    stack,      \* stack[s][th]: calls open on thread th, innermost last
    cancels,    \* cancel() calls made on s
    calls,      \* request() calls made on s
    faulted,    \* an on* call raised; the implementation must cancel (2.13)
    callRaised  \* ghost: a request()/cancel() call on s ended by raising (3.15, 3.16)

vars == <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
          up, sent, delivered, stack, cancels, calls, faulted, callRaised>>

-----------------------------------------------------------------------------
(* Vocabulary *)

PubStates   == {"idle", "subscribed", "active", "completed", "failed", "cancelled"}
Done        == {"completed", "failed", "cancelled"}
SigNames    == {"onSubscribe", "onNext", "onComplete", "onError"}
CallNames   == {"request", "cancel"}
ErrorCauses == {"source", "invalid"}     \* 1.4 source failure, 3.9 bad request
Signal(sig, seq, err) == [sig |-> sig, seq |-> seq, err |-> err]
Terminal(m) == m.sig \in {"onComplete", "onError"}

Count(seq, sig) == Cardinality({i \in DOMAIN seq : seq[i].sig = sig})
NextCount(s)    == Count(sent[s], "onNext")
InFlight(s)     == Len(sent[s]) - delivered[s]
Pending(s)      == sent[s][delivered[s] + 1]     \* next signal to deliver
Pop(q)          == SubSeq(q, 1, Len(q) - 1)
Cancelled(s)    == cancels[s] > 0
Invalid(s)      == invalidAt[s] >= 0

\* Call stacks.  Frames(s, th, K): how many frames of a kind in K are open on th.
Frames(s, th, K) == Cardinality({i \in DOMAIN stack[s][th] : stack[s][th][i] \in K})
TopIn(s, th, K)  == stack[s][th] # <<>> /\ stack[s][th][Len(stack[s][th])] \in K
InSignal(s, th)  == Frames(s, th, SigNames) > 0
InCall(s, th)    == Frames(s, th, CallNames) > 0
Push(s, th, f)   == [stack EXCEPT ![s][th] = Append(@, f)]
PopOn(s, th)     == [stack EXCEPT ![s][th] = Pop(@)]

\* A signal may begin on th: th is idle or inside request() (nesting, 3.2,
\* 3.10, 3.11: request() may signal synchronously; no rule lets cancel()); no
\* other thread runs a signal of s (1.3); an onNext keeps the onNext frames on
\* th within Depth (3.3).
CanBegin(s, th, sig) ==
    /\ stack[s][th] = <<>> \/ TopIn(s, th, {"request"})
    /\ \A o \in Threads \ {th} : ~InSignal(s, o)                          \* rule 1.3
    /\ sig = "onNext" => Frames(s, th, {"onNext"}) < Depth                 \* rule 3.3

\* The Subscriber may call request()/cancel() on th: from its own code (idle
\* or inside an on* method), never while another thread is in such a call (2.7).
CanCall(s, th) ==
    /\ stack[s][th] = <<>> \/ TopIn(s, th, SigNames)
    /\ \A o \in Threads \ {th} : ~InCall(s, o)                            \* rule 2.7

\* The first cancel after an on* method raised is the implementation's, made
\* for the Subscriber where it caught the exception (2.13): possibly inside the
\* request() whose emission ran that method, so directly inside request() on
\* th.  Rule 2.7 binds the Subscriber's own calls; across threads it holds for
\* this cancel too.
CanFaultCancel(s, th) ==
    /\ faulted[s] /\ ~Cancelled(s)                                        \* rule 2.13
    /\ TopIn(s, th, {"request"})
    /\ \A o \in Threads \ {th} : ~InCall(s, o)                            \* rule 2.7

CanCancel(s, th) == CanCall(s, th) \/ CanFaultCancel(s, th)

\* Rule 3.17: demand saturates at MaxDemand, which then stays "unbounded".
\* Written so that TLC's 32-bit integers never overflow.
SatAdd(d, n) == IF d = MaxDemand \/ n >= MaxDemand - d THEN MaxDemand ELSE d + n
Take(d)      == IF d = MaxDemand THEN MaxDemand ELSE d - 1

\* Ghost total of valid requests.  It is exact while the outstanding demand
\* stays below MaxDemand; once that reached MaxDemand the total is Cap, i.e.
\* more than the source can ever deliver.
Cap == MaxDemand + Elements
Unbounded(s) == requested[s] = Cap
AddRequested(s, n) ==
    IF Unbounded(s) \/ n >= MaxDemand - (requested[s] - NextCount(s)) THEN Cap
    ELSE requested[s] + n

\* With Sync a request/cancel is received, and a committed signal delivered,
\* before anything else happens on that Subscription.
SyncQuiet(s) == Sync => up[s] = <<>> /\ InFlight(s) = 0
\* With Sync a signal is committed only where it can be delivered at once.
SyncDeliverable(s, sig) == Sync => \E th \in Threads : CanBegin(s, th, sig)

UpRoom(s)   == Len(up[s]) < QueueBound
DownRoom(s) == InFlight(s) < QueueBound

\* Nothing queued, in flight or running on s.
Quiet(s) == up[s] = <<>> /\ InFlight(s) = 0 /\ \A th \in Threads : stack[s][th] = <<>>

\* The Publisher finishes with s: it drops its Subscriber reference and the
\* messages still queued for it (rule 3.13; rule 3.6: they are no-ops now).
Release(s, state) ==
    /\ pub' = [pub EXCEPT ![s] = state]
    /\ ref' = [ref EXCEPT ![s] = FALSE]
    /\ up'  = [up EXCEPT ![s] = <<>>]

TypeOK ==
    /\ pub \in [Subs -> PubStates]
    /\ emitted \in [Subs -> 0..Elements]
    /\ demand \in [Subs -> Int]
    /\ requested \in [Subs -> 0..Cap]
    /\ invalidAt \in [Subs -> Int]
    /\ asked \in [Subs -> BOOLEAN]
    /\ awake \in [Subs -> BOOLEAN]
    /\ ref \in [Subs -> BOOLEAN]
    /\ cutoff \in [Subs -> Int]
    /\ \A s \in Subs :
        /\ up[s] \in Seq([type : {"request"}, n : Sizes] \cup [type : {"cancel"}, n : {0}])
        /\ sent[s] \in Seq([sig : SigNames, seq : 0..Elements, err : ErrorCauses \cup {"none"}])
        /\ \A i \in DOMAIN sent[s] :
              (sent[s][i].sig = "onError") = (sent[s][i].err \in ErrorCauses)
        /\ stack[s] \in [Threads -> Seq(SigNames \cup CallNames)]
    /\ delivered \in [Subs -> Nat]
    /\ \A s \in Subs : delivered[s] <= Len(sent[s])
    /\ cancels \in [Subs -> 0..MaxCancels]
    /\ calls \in [Subs -> 0..MaxCalls]
    /\ faulted \in [Subs -> BOOLEAN]
    /\ callRaised \in [Subs -> BOOLEAN]

Init ==
    /\ pub = [s \in Subs |-> "idle"]
    /\ emitted = [s \in Subs |-> 0]
    /\ demand = [s \in Subs |-> 0]
    /\ requested = [s \in Subs |-> 0]
    /\ invalidAt = [s \in Subs |-> -1]
    /\ asked = [s \in Subs |-> FALSE]
    /\ awake = [s \in Subs |-> TRUE]
    /\ ref = [s \in Subs |-> FALSE]
    /\ cutoff = [s \in Subs |-> -1]
    /\ up = [s \in Subs |-> <<>>]
    /\ sent = [s \in Subs |-> <<>>]
    /\ delivered = [s \in Subs |-> 0]
    /\ stack = [s \in Subs |-> [th \in Threads |-> <<>>]]
    /\ cancels = [s \in Subs |-> 0]
    /\ calls = [s \in Subs |-> 0]
    /\ faulted = [s \in Subs |-> FALSE]
    /\ callRaised = [s \in Subs |-> FALSE]

-----------------------------------------------------------------------------
(* Subscriber side: calls into the Publisher and the Subscription.         *)

\* Rules 1.9, 1.10, 1.11 -- reactive_streams.sources IterablePublisher.subscribe()
\* (trace "subscribe").  Each call starts a new Subscription s.
Subscribe(s) ==
    /\ pub[s] = "idle"
    /\ pub' = [pub EXCEPT ![s] = "subscribed"]
    /\ ref' = [ref EXCEPT ![s] = TRUE]
    /\ UNCHANGED <<emitted, demand, requested, invalidAt, asked, awake, cutoff, up, sent,
                   delivered, stack, cancels, calls, faulted, callRaised>>

\* Rules 2.1, 2.7, 3.2, 3.6, 3.9 -- reactive_streams._core.pump
\* IteratorSubscription.request() entered on thread th (trace "request",
\* fields n, thread).  Any n is accepted here, invalid ones too (3.9 answers
\* them with onError later).  After cancel, after a raise, or once the
\* Publisher is done, it sends nothing (3.6).
Request(s, th, n) ==
    /\ delivered[s] >= 1                   \* the Subscriber holds the Subscription
    /\ calls[s] < MaxCalls
    /\ CanCall(s, th)
    /\ SyncQuiet(s)
    /\ calls' = [calls EXCEPT ![s] = @ + 1]
    /\ stack' = Push(s, th, "request")
    /\ IF Cancelled(s) \/ faulted[s] \/ pub[s] \in Done
       THEN UNCHANGED <<up, asked>>                                      \* rule 3.6
       ELSE /\ UpRoom(s)
            /\ up' = [up EXCEPT ![s] = Append(@, [type |-> "request", n |-> n])]
            /\ asked' = [asked EXCEPT ![s] = @ \/ n <= 0]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, awake, ref, cutoff,
                   sent, delivered, cancels, faulted, callRaised>>

\* Rule 3.16: request() returns (trace "end_request", field raised: an
\* exception out of it).  Rules 3.15, 3.16: request() and cancel() return
\* normally, also when an on* method run inside them raised: 2.13 then has
\* the Subscription considered cancelled (Request sends nothing more, the
\* owed cancel follows, CanFaultCancel) and the error goes to the caller of
\* that on* method, never out of the Subscriber's request()/cancel().
EndRequest(s, th, raised) ==
    /\ TopIn(s, th, {"request"})
    /\ ~raised                                                            \* rule 3.16
    /\ stack' = PopOn(s, th)
    /\ callRaised' = [callRaised EXCEPT ![s] = @ \/ raised]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   up, sent, delivered, cancels, calls, faulted>>

\* Rules 2.7, 3.5, 3.7, 2.13 -- reactive_streams._core.pump
\* IteratorSubscription.cancel() entered on thread th (trace "cancel"); also
\* called by _subscriber_raised() after an on* method raised (CanCancel).
\* Only the first call on a live Subscription sends anything; later calls are
\* no-ops (3.7).
Cancel(s, th) ==
    /\ delivered[s] >= 1
    /\ cancels[s] < MaxCancels
    /\ CanCancel(s, th)
    /\ SyncQuiet(s)
    /\ cancels' = [cancels EXCEPT ![s] = @ + 1]
    /\ stack' = Push(s, th, "cancel")
    /\ up' = IF cancels[s] = 0 /\ pub[s] \notin Done
             THEN [up EXCEPT ![s] = Append(@, [type |-> "cancel", n |-> 0])]
             ELSE up
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   sent, delivered, calls, faulted, callRaised>>

\* Rule 3.15: cancel() returns (trace "end_cancel", field raised).
EndCancel(s, th, raised) ==
    /\ TopIn(s, th, {"cancel"})
    /\ ~raised                                                            \* rule 3.15
    /\ stack' = PopOn(s, th)
    /\ callRaised' = [callRaised EXCEPT ![s] = @ \/ raised]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   up, sent, delivered, cancels, calls, faulted>>

-----------------------------------------------------------------------------
(* Publisher side: it receives messages and commits signals.               *)

\* Rules 3.8, 3.9, 3.17 -- reactive_streams._core.pump
\* IteratorSubscription._receive() / request() (trace "recv_request", field n);
\* arithmetic in reactive_streams._core.demand add_demand() and check_request().
RecvRequest(s) ==
    /\ up[s] # <<>>
    /\ Head(up[s]).type = "request"
    /\ LET n == Head(up[s]).n IN
       /\ up' = [up EXCEPT ![s] = Tail(@)]
       /\ IF n <= 0                                                        \* rule 3.9
          THEN /\ invalidAt' = [invalidAt EXCEPT ![s] = IF @ < 0 THEN Len(sent[s]) ELSE @]
               /\ UNCHANGED <<demand, requested, awake>>
          ELSE /\ requested' = [requested EXCEPT ![s] = AddRequested(s, n)]
               /\ demand' = [demand EXCEPT ![s] = SatAdd(@, n)]            \* rule 3.17
               /\ awake' = [awake EXCEPT ![s] = TRUE]
               /\ UNCHANGED invalidAt
    /\ UNCHANGED <<pub, emitted, asked, ref, cutoff, sent, delivered, stack, cancels,
                   calls, faulted, callRaised>>

\* Rules 1.8, 3.12, 3.13 -- reactive_streams._core.pump
\* IteratorSubscription._receive() / cancel() then _release() (trace
\* "recv_cancel").  The Publisher stops and drops its references.
RecvCancel(s) ==
    /\ up[s] # <<>>
    /\ Head(up[s]).type = "cancel"
    /\ pub' = [pub EXCEPT ![s] = "cancelled"]
    /\ ref' = [ref EXCEPT ![s] = FALSE]
    /\ up' = [up EXCEPT ![s] = <<>>]
    /\ cutoff' = [cutoff EXCEPT ![s] = Len(sent[s])]
    /\ UNCHANGED <<emitted, demand, requested, invalidAt, asked, awake, sent, delivered,
                   stack, cancels, calls, faulted, callRaised>>

\* Rules 1.9, 2.12 -- reactive_streams._core.pump
\* IteratorSubscription._deliver_subscribe() (trace "send_on_subscribe").
SendOnSubscribe(s) ==
    /\ pub[s] = "subscribed"
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onSubscribe")
    /\ pub' = [pub EXCEPT ![s] = "active"]
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onSubscribe", 0, "none"))]
    /\ UNCHANGED <<emitted, demand, requested, invalidAt, asked, awake, ref, cutoff, up,
                   delivered, stack, cancels, calls, faulted, callRaised>>

\* Rules 1.1, 3.9, 3.17 -- reactive_streams._core.pump
\* IteratorSubscription._emit_bounded() / _emit_unbounded() / _emit_traced()
\* (trace "send_on_next", field seq = emitted[s] + 1); reactive_streams._core.demand take().
SendOnNext(s) ==
    /\ pub[s] = "active"
    /\ emitted[s] < Elements
    /\ demand[s] > 0                                                      \* rule 1.1
    /\ ~Invalid(s)                                                        \* rule 3.9
    /\ awake[s]
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onNext")
    /\ emitted' = [emitted EXCEPT ![s] = @ + 1]
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onNext", emitted[s] + 1, "none"))]
    /\ demand' = [demand EXCEPT ![s] = Take(@)]                           \* rule 3.17
    /\ awake' = [awake EXCEPT ![s] = TRUE]      \* the drain loop goes on while demand is left
    /\ UNCHANGED <<pub, requested, invalidAt, asked, ref, cutoff, up, delivered, stack,
                   cancels, calls, faulted, callRaised>>

\* Rules 1.2, 1.5, 1.6, 3.9 -- reactive_streams._core.pump
\* IteratorSubscription._signal_complete() via _finish() (trace "send_on_complete").
\* An exhausted source completes without demand; EarlyEnd lets it end sooner.
SendOnComplete(s) ==
    /\ pub[s] = "active"
    /\ ~Invalid(s)                                                        \* rule 3.9
    /\ emitted[s] = Elements \/ EarlyEnd
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onComplete")
    /\ Release(s, "completed")
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onComplete", 0, "none"))]
    /\ UNCHANGED <<emitted, demand, requested, invalidAt, asked, awake, cutoff, delivered,
                   stack, cancels, calls, faulted, callRaised>>

\* Rules 1.4, 1.6, 3.9 -- reactive_streams._core.pump
\* IteratorSubscription._signal_error() via _finish() (trace "send_on_error",
\* fields error, error_type).  cause "invalid": the IllegalArgument answer to
\* request(n <= 0) (3.9), the only error allowed once one was received;
\* cause "source": the source failed (1.4).
ErrorAllowed(s, cause) ==
    CASE cause = "invalid" -> Invalid(s)
      [] cause = "source"  -> SourceFails /\ ~Invalid(s)
      [] OTHER             -> FALSE

SendOnError(s, cause) ==
    /\ pub[s] = "active"
    /\ ErrorAllowed(s, cause)
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncDeliverable(s, "onError")
    /\ Release(s, "failed")
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onError", 0, cause))]
    /\ UNCHANGED <<emitted, demand, requested, invalidAt, asked, awake, cutoff, delivered,
                   stack, cancels, calls, faulted, callRaised>>

\* Rule 3.8 -- reactive_streams._core.pump: the drain loop finds no demand and
\* sleeps; RecvRequest wakes it (a lost wake-up leaves demand unserved,
\* Spec308_DemandServedProp).  The trace does not record it.
Sleep(s) ==
    /\ pub[s] = "active" /\ awake[s] /\ demand[s] = 0
    /\ emitted[s] < Elements /\ ~Invalid(s)     \* else the loop ends the stream
    /\ awake' = [awake EXCEPT ![s] = FALSE]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, ref, cutoff, up, sent,
                   delivered, stack, cancels, calls, faulted, callRaised>>

-----------------------------------------------------------------------------
(* The Subscriber executes the signals, in order, on some thread.          *)

\* Rules 1.3, 3.3 -- the call of the Subscriber's on* method on thread th
\* (reactive_streams._core.pump _emit_*, _deliver_subscribe, _call_terminal),
\* trace "begin_on_<signal>", field thread.
Begin(s, th, sig) ==
    /\ delivered[s] < Len(sent[s])
    /\ Pending(s).sig = sig
    /\ Sync => up[s] = <<>>
    /\ CanBegin(s, th, sig)
    /\ delivered' = [delivered EXCEPT ![s] = @ + 1]
    /\ stack' = Push(s, th, sig)
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   up, sent, cancels, calls, faulted, callRaised>>

\* Rule 2.13 -- the return (raised = FALSE) or exception (raised = TRUE) of
\* the Subscriber's on* method, trace "end_on_<signal>" with field raised.
\* After an exception the implementation cancels (_subscriber_raised()).
End(s, th, sig, raised) ==
    /\ TopIn(s, th, {sig})
    /\ raised => Raises
    /\ stack' = PopOn(s, th)
    /\ faulted' = [faulted EXCEPT ![s] = @ \/ raised]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalidAt, asked, awake, ref, cutoff,
                   up, sent, delivered, cancels, calls, callRaised>>

-----------------------------------------------------------------------------

Next ==
    \E s \in Subs :
        \/ Subscribe(s)
        \/ RecvRequest(s)
        \/ RecvCancel(s)
        \/ SendOnSubscribe(s)
        \/ SendOnNext(s)
        \/ SendOnComplete(s)
        \/ \E cause \in ErrorCauses : SendOnError(s, cause)
        \/ Sleep(s)
        \/ \E th \in Threads :
              \/ \E n \in Sizes : Request(s, th, n)
              \/ \E raised \in BOOLEAN : EndRequest(s, th, raised)
              \/ Cancel(s, th)
              \/ \E raised \in BOOLEAN : EndCancel(s, th, raised)
              \/ \E sig \in SigNames : Begin(s, th, sig)
              \/ \E sig \in SigNames, raised \in BOOLEAN : End(s, th, sig, raised)

\* Fairness: the Publisher keeps working and every call returns.  The
\* Subscriber's own calls (subscribe, request, cancel) are never forced,
\* except the cancel the implementation makes after an on* method raised.
\* Early completion, source failures and the drain loop's sleep are
\* possible, never forced.
Fairness ==
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
        /\ WF_vars(faulted[s] /\ ~Cancelled(s) /\ \E th \in Threads : Cancel(s, th))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Safety: one invariant per rule.                                         *)

\* Rule 1.1: onNext signalled <= elements requested, at all times.
Spec101_DeliveredLeqRequestedInv ==
    \A s \in Subs : NextCount(s) <= requested[s]

\* Rule 1.3: signals are serial: at most one thread runs on* calls of s, and
\* on that thread a signal begins only at the bottom of the stack or directly
\* inside a request() call (3.2, 3.10, 3.11), never directly inside another
\* signal or inside cancel().
Spec103_SerialSignalsInv ==
    \A s \in Subs :
        /\ Cardinality({th \in Threads : InSignal(s, th)}) <= 1
        /\ \A th \in Threads : \A i \in 2..Len(stack[s][th]) :
              stack[s][th][i] \in SigNames => stack[s][th][i - 1] = "request"

\* Rule 1.7: nothing follows onComplete or onError, whatever the cancel state.
Spec107_NothingAfterTerminalInv ==
    \A s \in Subs : \A i \in DOMAIN sent[s] : Terminal(sent[s][i]) => i = Len(sent[s])

\* Rule 1.9: onSubscribe precedes every other signal.
Spec109_OnSubscribeFirstInv ==
    \A s \in Subs : sent[s] # <<>> => sent[s][1].sig = "onSubscribe"

\* Rule 2.7: request() and cancel() are called serially: at most one thread
\* is inside them at a time (nesting on one thread is serial).
SerialCallsInv ==
    \A s \in Subs : Cardinality({th \in Threads : InCall(s, th)}) <= 1

\* Rule 2.7: a request()/cancel() call begins at the bottom of its stack or
\* directly inside an on* method (the Subscriber's own code), never directly
\* inside another request()/cancel(); the one exception is the cancel the
\* implementation makes inside request() after an on* method raised (2.13).
Spec207_NoNestedCallsInv ==
    \A s \in Subs : \A th \in Threads : \A i \in 2..Len(stack[s][th]) :
        stack[s][th][i] \in CallNames /\ stack[s][th][i - 1] \in CallNames =>
            /\ stack[s][th][i - 1] = "request" /\ stack[s][th][i] = "cancel"
            /\ faulted[s]

\* Rule 2.12: onSubscribe at most once (per Subscription = per Subscriber here).
Spec212_OnSubscribeOnceInv ==
    \A s \in Subs : Count(sent[s], "onSubscribe") <= 1

\* Rule 3.3: onNext -> request -> onNext nesting stays within Depth onNext frames.
Spec303_BoundedRecursionInv ==
    \A s \in Subs : \A th \in Threads : Frames(s, th, {"onNext"}) <= Depth

\* Rule 3.6: a request made after cancel never reaches the Publisher.
Spec306_RequestAfterCancelNopInv ==
    \A s \in Subs :
        /\ \A i, j \in DOMAIN up[s] :
              i < j /\ up[s][i].type = "cancel" => up[s][j].type # "request"
        /\ pub[s] = "cancelled" => \A i \in DOMAIN up[s] : up[s][i].type # "request"

\* Rule 3.7: a cancel() once the Publisher is done (after the terminal
\* signal, or after the cancel was received) is a no-op: no cancel is in
\* flight then.  "At most one cancel in flight" is not stated: a second one
\* queued behind the first is never received (RecvCancel drops the queue,
\* 3.6), so no state the Publisher or the Subscriber sees, and no trace, can
\* tell it from a no-op.
Spec307_RepeatedCancelNopInv ==
    \A s \in Subs : pub[s] \in Done => \A i \in DOMAIN up[s] : up[s][i].type # "cancel"

\* Rule 3.8: every valid request(n) adds n to the demand (saturating, 3.17):
\* the Publisher's counter is what was requested minus what was signalled.
Spec308_RequestAddsDemandInv ==
    \A s \in Subs :
        demand[s] = IF Unbounded(s) THEN MaxDemand ELSE requested[s] - NextCount(s)

\* Rule 3.9: once request(n <= 0) was received, no onNext and no onComplete
\* follow; the only signal that may follow is the IllegalArgument onError.
Spec309_InvalidRequestNoCompleteInv ==
    \A s \in Subs : Invalid(s) =>
        \A i \in DOMAIN sent[s] :
            i > invalidAt[s] => sent[s][i].sig = "onError" /\ sent[s][i].err = "invalid"

\* Rules 3.12, 1.8: once the cancel is received, no further signal is
\* committed (only those already in flight are delivered).
Spec312_SilentAfterCancelInv ==
    \A s \in Subs : cutoff[s] >= 0 => Len(sent[s]) = cutoff[s]

\* Rule 3.17: demand stays within 0..2^63-1 (no overflow) and, once the
\* outstanding demand reached 2^63-1, it is "effectively unbounded" for good.
Spec317_DemandSaturatesInv ==
    \A s \in Subs :
        /\ demand[s] \in 0..MaxDemand
        /\ Unbounded(s) => demand[s] = MaxDemand

-----------------------------------------------------------------------------
(* Liveness, under Fairness.                                               *)

Terminated(s)     == \E i \in 1..delivered[s] : Terminal(sent[s][i])
InvalidAnswered(s) == \E i \in 1..delivered[s] : sent[s][i].err = "invalid"
Stopped(s)        == pub[s] \in Done /\ InFlight(s) = 0 /\ \A th \in Threads : ~InSignal(s, th)
\* s has outstanding demand and elements left, but no onNext is coming.
Hungry(s) ==
    /\ pub[s] = "active" /\ ~Invalid(s)
    /\ emitted[s] < Elements /\ requested[s] > NextCount(s)

\* Rule 1.5: with demand for every element the Subscription terminates
\* (onComplete, or onError if the source fails) unless it is cancelled.
Spec105_CompletesProp ==
    \A s \in Subs :
        pub[s] # "idle" /\ requested[s] >= Elements ~> (Terminated(s) \/ Cancelled(s))

\* Rules 1.8, 3.12: after cancel, signals eventually stop for good.
Spec108_CancelStopsProp ==
    \A s \in Subs : Cancelled(s) ~> Stopped(s)

\* Rule 1.9: subscribe is eventually answered by onSubscribe.
Spec109_OnSubscribeEventuallyProp ==
    \A s \in Subs : pub[s] = "subscribed" ~> delivered[s] >= 1

\* Rule 2.13: after an on* method raised, the Subscription is cancelled.
Spec213_FaultCancelsProp ==
    \A s \in Subs : faulted[s] ~> Cancelled(s)

\* Rule 2.13: the cancel owed after an on* method raised is made once: a
\* cancel() begun directly inside request() (not from the Subscriber's own
\* code, 2.7) is the first cancel of s, and an on* method has raised.
Spec213_FaultCancelOnceProp ==
    [][\A s \in Subs, th \in Threads :
          (/\ cancels'[s] > cancels[s]
           /\ TopIn(s, th, {"request"})
           /\ stack'[s][th] = Append(stack[s][th], "cancel"))
          => faulted[s] /\ ~Cancelled(s)]_vars

\* Rule 3.8 (no lost wake-up): demand with elements left is never ignored
\* forever, although the drain loop sleeps (Sleep) whenever it finds no demand.
Spec308_DemandServedProp ==
    \A s \in Subs : []<>~Hungry(s)

\* Rule 3.9: a request(n <= 0) sent to the Publisher is eventually answered
\* by the IllegalArgument onError, unless the Subscription was cancelled or
\* the Publisher finished before the request arrived.
Spec309_InvalidRequestErrorsProp ==
    \A s \in Subs :
        asked[s] ~> (InvalidAnswered(s) \/ Cancelled(s) \/ (pub[s] \in Done /\ ~Invalid(s)))

\* Rule 3.13: cancel eventually drops the Publisher's reference to the Subscriber.
Spec313_DropReferenceProp ==
    \A s \in Subs : Cancelled(s) ~> ~ref[s]

\* Rule 2.13: once an on* method raised, the Subscription is considered
\* cancelled: a request() made after it sends nothing (only the owed cancel
\* may still go to the Publisher).
Spec213_RaisedConsideredCancelledProp ==
    [][\A s \in Subs :
          faulted[s] /\ Len(up'[s]) > Len(up[s]) => up'[s][Len(up'[s])].type = "cancel"]_vars

\* Rules 3.15, 3.16 (and 3.5): every request() and cancel() call returns, and
\* normally: none raises.
Spec315_CallsReturnProp ==
    /\ \A s \in Subs, th \in Threads : InCall(s, th) ~> ~InCall(s, th)
    /\ [](\A s \in Subs : ~callRaised[s])

=============================================================================
