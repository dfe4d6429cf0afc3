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
(* after cancel" (2.8) are real states.  With Sync = TRUE a request or a   *)
(* cancel is received at once and a committed signal is delivered at once  *)
(* (3.10, 3.11), and request may recurse into onNext (3.2, 3.3).           *)
(*                                                                         *)
(* Every action is one event of the implementation's trace (docs/spec.md): *)
(* Subscribe, Request, Cancel, RecvRequest, RecvCancel, SendOnSubscribe,   *)
(* SendOnNext, SendOnComplete, SendOnError, Begin<Signal>, End<Signal>.    *)
(*                                                                         *)
(* Not modelled: element values (only their sequence numbers), threads     *)
(* (the Subscriber side is one logical actor, rule 2.7), Processors (4.x), *)
(* exact 64-bit demand (MaxDemand stands for 2^63-1; the Python side tests *)
(* the arithmetic), and the same Subscriber subscribed twice (2.12): every *)
(* subscribe call creates a fresh Subscription whose Subscriber is its     *)
(* own, because rule 1.10 forbids the caller to reuse one and a trace      *)
(* cannot tell two Subscriptions of one Subscriber from two Subscribers.   *)
(* Spec212 therefore checks "onSubscribe at most once per Subscription".   *)
(*                                                                         *)
(* Bug selects one deliberate defect for the must-fail models in           *)
(* spec/models.toml; "None" is the correct protocol.                       *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Subs,         \* Subscription ids (the trace's "sub"), one Subscriber each
    Elements,     \* the source has at most this many elements per Subscription
    Sizes,        \* the n a Subscriber may pass to request(n), invalid ones included
    MaxDemand,    \* stands for 2^63-1: "effectively unbounded" demand (3.17)
    MaxCalls,     \* bound on request() calls per Subscription (keeps TLC finite)
    MaxCancels,   \* bound on cancel() calls per Subscription (2 shows 3.5 and 3.7)
    QueueBound,   \* bound on messages in flight per direction and Subscription
    Sync,         \* TRUE: requests received and signals delivered at once (3.10)
    EarlyEnd,     \* TRUE: the source may complete before Elements (1.2)
    SourceFails,  \* TRUE: the source may fail at any point (1.4)
    Raises,       \* TRUE: a Subscriber's on* method may raise (2.13)
    Bug           \* "None", or the one defect a must-fail model injects

Bugs == {"None", "NullError", "SkipDemandCheck", "ConcurrentSignals",
         "TerminalTwice", "SignalBeforeOnSubscribe", "OnSubscribeTwice",
         "UnboundedRecursion", "RequestAfterCancel", "LoseRequestRace",
         "IgnoreInvalidRequest", "DeliverAfterCancelObserved",
         "WrapNotSaturate", "ForgetComplete", "NeverObserveCancel",
         "NeverOnSubscribe", "MissedWakeUp", "NoErrorOnInvalidRequest",
         "KeepReference"}

ASSUME Elements \in Nat /\ MaxDemand \in Nat /\ MaxDemand > Elements
ASSUME MaxDemand <= 2147483647 - Elements   \* Cap fits in TLC's 32-bit integers
ASSUME Sizes \subseteq Int /\ \A n \in Sizes : n <= MaxDemand
ASSUME MaxCalls \in Nat /\ MaxCancels \in Nat \ {0} /\ QueueBound \in Nat \ {0}
ASSUME {Sync, EarlyEnd, SourceFails, Raises} \subseteq BOOLEAN
ASSUME Bug \in Bugs

VARIABLES
    pub,        \* Publisher's view of s: "idle" (no subscribe yet), "subscribed",
                \*   "active" (onSubscribe committed), "completed", "failed", "cancelled"
    emitted,    \* elements taken from the source for s (the next onNext's seq - 1)
    demand,     \* outstanding demand as the Publisher counts it (MaxDemand = unbounded)
    requested,  \* ghost: sum of the valid n the Publisher received; Cap once the
                \*   outstanding demand has reached MaxDemand ("unbounded", 3.17)
    invalid,    \* the Publisher received a request(n <= 0) while active (3.9)
    awake,      \* the drain loop is scheduled (only MissedWakeUp ever clears it)
    ref,        \* the Publisher holds a reference to the Subscriber (3.13)
    cutoff,     \* ghost: Len(sent[s]) when the cancel was observed
    up,         \* FIFO of [type |-> "request"|"cancel", n |-> Int] towards the Publisher
    sent,       \* committed signals [sig, seq, err], in commit order
    delivered,  \* how many of sent[s] the Subscriber has begun to process
    open,       \* stack of on* calls in progress [sig, depth, req], innermost last
    cancels,    \* cancel() calls made on s
    calls,      \* request() calls made on s
    faulted     \* an on* call raised; the implementation must cancel (2.13)

vars == <<pub, emitted, demand, requested, invalid, awake, ref, cutoff,
          up, sent, delivered, open, cancels, calls, faulted>>

-----------------------------------------------------------------------------
(* Vocabulary *)

PubStates   == {"idle", "subscribed", "active", "completed", "failed", "cancelled"}
Done        == {"completed", "failed", "cancelled"}
SigNames    == {"onSubscribe", "onNext", "onComplete", "onError"}
ErrorCauses == {"source", "invalid"}     \* 1.4 source failure, 3.9 bad request
Signal(sig, seq, err) == [sig |-> sig, seq |-> seq, err |-> err]
Terminal(m) == m.sig \in {"onComplete", "onError"}

Count(seq, sig) == Cardinality({i \in DOMAIN seq : seq[i].sig = sig})
NextCount(s)    == Count(sent[s], "onNext")
InFlight(s)     == Len(sent[s]) - delivered[s]
Pending(s)      == sent[s][delivered[s] + 1]     \* next signal to deliver
Top(s)          == open[s][Len(open[s])]         \* innermost call in progress
Pop(q)          == SubSeq(q, 1, Len(q) - 1)
Cancelled(s)    == cancels[s] > 0

\* Rule 3.17: demand saturates at MaxDemand, which then stays "unbounded".
\* Written so that TLC's 32-bit integers never overflow.
SatAdd(d, n) == IF d = MaxDemand \/ n >= MaxDemand - d THEN MaxDemand ELSE d + n
\* The two's complement wrap of a 64-bit long, for Bug = "WrapNotSaturate".
WrapAdd(d, n) == IF n > MaxDemand - d THEN (d - MaxDemand - 1) + (n - MaxDemand - 1)
                                      ELSE d + n
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
\* With Sync the Publisher signals only at the top of the stack (trampolining,
\* rule 3.3); Bug = "UnboundedRecursion" lets a request made inside onNext
\* deliver the next onNext inline.
SyncTop(s) == Sync => \/ open[s] = <<>>
                      \/ open[s] # <<>> /\ Bug = "UnboundedRecursion" /\ Top(s).req

UpRoom(s)   == Len(up[s]) < QueueBound
DownRoom(s) == InFlight(s) < QueueBound

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
    /\ invalid \in [Subs -> BOOLEAN]
    /\ awake \in [Subs -> BOOLEAN]
    /\ ref \in [Subs -> BOOLEAN]
    /\ cutoff \in [Subs -> Nat]
    /\ \A s \in Subs :
        /\ up[s] \in Seq([type : {"request"}, n : Sizes] \cup [type : {"cancel"}, n : {0}])
        /\ sent[s] \in Seq([sig : SigNames, seq : 0..Elements, err : ErrorCauses \cup {"none"}])
        /\ \A i \in DOMAIN sent[s] :
              (sent[s][i].sig = "onError") = (sent[s][i].err \in ErrorCauses)
        /\ open[s] \in Seq([sig : SigNames, depth : Nat \ {0}, req : BOOLEAN])
    /\ delivered \in [Subs -> Nat]
    /\ \A s \in Subs : delivered[s] <= Len(sent[s])
    /\ cancels \in [Subs -> 0..MaxCancels]
    /\ calls \in [Subs -> 0..MaxCalls]
    /\ faulted \in [Subs -> BOOLEAN]

Init ==
    /\ pub = [s \in Subs |-> "idle"]
    /\ emitted = [s \in Subs |-> 0]
    /\ demand = [s \in Subs |-> 0]
    /\ requested = [s \in Subs |-> 0]
    /\ invalid = [s \in Subs |-> FALSE]
    /\ awake = [s \in Subs |-> TRUE]
    /\ ref = [s \in Subs |-> FALSE]
    /\ cutoff = [s \in Subs |-> 0]
    /\ up = [s \in Subs |-> <<>>]
    /\ sent = [s \in Subs |-> <<>>]
    /\ delivered = [s \in Subs |-> 0]
    /\ open = [s \in Subs |-> <<>>]
    /\ cancels = [s \in Subs |-> 0]
    /\ calls = [s \in Subs |-> 0]
    /\ faulted = [s \in Subs |-> FALSE]

-----------------------------------------------------------------------------
(* Subscriber side: calls into the Publisher and the Subscription.         *)

\* Rules 1.9, 1.10, 1.11 -- reactive_streams.sources IterablePublisher.subscribe()
\* (trace "subscribe").  Each call starts a new Subscription s.
Subscribe(s) ==
    /\ pub[s] = "idle"
    /\ pub' = [pub EXCEPT ![s] = "subscribed"]
    /\ ref' = [ref EXCEPT ![s] = TRUE]
    /\ UNCHANGED <<emitted, demand, requested, invalid, awake, cutoff, up, sent,
                   delivered, open, cancels, calls, faulted>>

\* Rules 2.1, 3.2, 3.6, 3.9 -- reactive_streams._subscription
\* IteratorSubscription.request() (trace "request", field n).  Any n is
\* accepted here, invalid ones too (3.9 answers them with onError later).
\* After cancel, or once the Publisher is done, it is a no-op (3.6).  Called
\* inside an on* call it marks that call, so a synchronous Publisher could
\* recurse (3.3).
Request(s, n) ==
    /\ delivered[s] >= 1                   \* the Subscriber holds the Subscription
    /\ calls[s] < MaxCalls
    /\ SyncQuiet(s)
    /\ calls' = [calls EXCEPT ![s] = @ + 1]
    /\ IF (Cancelled(s) \/ faulted[s] \/ pub[s] \in Done) /\ Bug # "RequestAfterCancel"
       THEN UNCHANGED up                                        \* rule 3.6
       ELSE /\ UpRoom(s)
            /\ up' = [up EXCEPT ![s] = Append(@, [type |-> "request", n |-> n])]
    /\ open' = IF Sync /\ open[s] # <<>>
               THEN [open EXCEPT ![s][Len(open[s])].req = TRUE]
               ELSE open
    /\ UNCHANGED <<pub, emitted, demand, requested, invalid, awake, ref, cutoff,
                   sent, delivered, cancels, faulted>>

\* Rules 3.5, 3.7, 2.13 -- reactive_streams._subscription
\* IteratorSubscription.cancel() (trace "cancel"); also called by
\* _subscriber_raised() after an on* method raised.  Only the first call on
\* a live Subscription sends anything; later calls are no-ops (3.7).
Cancel(s) ==
    /\ delivered[s] >= 1
    /\ cancels[s] < MaxCancels
    /\ SyncQuiet(s)
    /\ cancels' = [cancels EXCEPT ![s] = @ + 1]
    /\ up' = IF cancels[s] = 0 /\ pub[s] \notin Done
             THEN [up EXCEPT ![s] = Append(@, [type |-> "cancel", n |-> 0])]
             ELSE up
    /\ UNCHANGED <<pub, emitted, demand, requested, invalid, awake, ref, cutoff,
                   sent, delivered, open, calls, faulted>>

-----------------------------------------------------------------------------
(* Publisher side: it receives messages and commits signals.               *)

\* Rules 3.8, 3.9, 3.17 -- reactive_streams._subscription
\* IteratorSubscription._receive() / request() (trace "recv_request", field n);
\* arithmetic in reactive_streams._demand add_demand() and check_request().
RecvRequest(s) ==
    /\ up[s] # <<>>
    /\ Head(up[s]).type = "request"
    /\ LET n == Head(up[s]).n
           d == demand[s]
       IN
       /\ up' = [up EXCEPT ![s] = Tail(@)]
       /\ IF n <= 0
          THEN /\ invalid' = [invalid EXCEPT ![s] = TRUE]                 \* rule 3.9
               /\ UNCHANGED <<demand, requested, awake>>
          ELSE /\ requested' = [requested EXCEPT ![s] = AddRequested(s, n)]
               /\ demand' = [demand EXCEPT ![s] =
                     CASE Bug = "WrapNotSaturate" -> WrapAdd(d, n)
                       [] Bug = "LoseRequestRace" /\ d > 0 -> d           \* update lost
                       [] OTHER -> SatAdd(d, n)]                           \* rule 3.17
               /\ awake' = [awake EXCEPT ![s] = TRUE]
               /\ UNCHANGED invalid
    /\ UNCHANGED <<pub, emitted, ref, cutoff, sent, delivered, open, cancels, calls,
                   faulted>>

\* Rules 1.8, 3.12, 3.13 -- reactive_streams._subscription
\* IteratorSubscription._receive() / cancel() then _release() (trace
\* "recv_cancel").  The Publisher stops and drops its references.
RecvCancel(s) ==
    /\ Bug # "NeverObserveCancel"
    /\ up[s] # <<>>
    /\ Head(up[s]).type = "cancel"
    /\ pub' = [pub EXCEPT ![s] = "cancelled"]
    /\ ref' = [ref EXCEPT ![s] = (Bug = "KeepReference")]
    /\ up' = [up EXCEPT ![s] = <<>>]
    /\ cutoff' = [cutoff EXCEPT ![s] = Len(sent[s])]
    /\ UNCHANGED <<emitted, demand, requested, invalid, awake, sent, delivered, open,
                   cancels, calls, faulted>>

\* Rules 1.9, 2.12 -- reactive_streams._subscription
\* IteratorSubscription._deliver_subscribe() (trace "send_on_subscribe").
SendOnSubscribe(s) ==
    /\ Bug # "NeverOnSubscribe"
    /\ \/ pub[s] = "subscribed"
       \/ Bug = "OnSubscribeTwice" /\ pub[s] = "active" /\ Count(sent[s], "onSubscribe") = 1
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncTop(s)
    /\ pub' = [pub EXCEPT ![s] = "active"]
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onSubscribe", 0, "none"))]
    /\ UNCHANGED <<emitted, demand, requested, invalid, awake, ref, cutoff, up,
                   delivered, open, cancels, calls, faulted>>

\* Rules 1.1, 3.17 -- reactive_streams._subscription
\* IteratorSubscription._emit_bounded() / _emit_unbounded() / _emit_traced()
\* (trace "send_on_next", field seq = emitted[s] + 1); reactive_streams._demand take().
SendOnNext(s) ==
    /\ \/ pub[s] = "active"
       \/ Bug = "DeliverAfterCancelObserved" /\ pub[s] = "cancelled"
    /\ emitted[s] < Elements
    /\ demand[s] > 0 \/ Bug = "SkipDemandCheck"                          \* rule 1.1
    /\ ~invalid[s] \/ Bug = "IgnoreInvalidRequest"                       \* rule 3.9
    /\ awake[s]
    /\ DownRoom(s) /\ SyncQuiet(s) /\ SyncTop(s)
    /\ emitted' = [emitted EXCEPT ![s] = @ + 1]
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onNext", emitted[s] + 1, "none"))]
    /\ demand' = [demand EXCEPT ![s] = Take(@)]                           \* rule 3.17
    /\ awake' = [awake EXCEPT ![s] = (Bug # "MissedWakeUp")]
    /\ UNCHANGED <<pub, requested, invalid, ref, cutoff, up, delivered, open, cancels,
                   calls, faulted>>

\* Rules 1.2, 1.5, 1.6 -- reactive_streams._subscription
\* IteratorSubscription._signal_complete() via _finish() (trace "send_on_complete").
\* An exhausted source completes without demand; EarlyEnd lets it end sooner.
SendOnComplete(s) ==
    /\ \/ /\ pub[s] = "active"
          /\ ~invalid[s] \/ Bug = "IgnoreInvalidRequest"                 \* rule 3.9
          /\ IF Bug = "ForgetComplete"
             THEN EarlyEnd /\ emitted[s] < Elements
             ELSE emitted[s] = Elements \/ EarlyEnd
       \/ Bug = "TerminalTwice" /\ pub[s] = "completed" /\ Count(sent[s], "onComplete") = 1
    /\ DownRoom(s) /\ SyncQuiet(s) /\ (Sync => open[s] = <<>>)
    /\ Release(s, "completed")
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onComplete", 0, "none"))]
    /\ UNCHANGED <<emitted, demand, requested, invalid, awake, cutoff, delivered, open,
                   cancels, calls, faulted>>

\* Rules 1.4, 1.6, 3.9 -- reactive_streams._subscription
\* IteratorSubscription._signal_error() via _finish() (trace "send_on_error",
\* field error).  cause "invalid": the answer to request(n <= 0) (3.9);
\* cause "source": the source failed (1.4).
SendOnError(s, cause) ==
    /\ \/ pub[s] = "active"
       \/ Bug = "SignalBeforeOnSubscribe" /\ pub[s] = "subscribed"
    /\ CASE cause = "invalid" -> invalid[s] /\ Bug # "NoErrorOnInvalidRequest"
         [] cause = "source"  -> SourceFails
         [] OTHER             -> FALSE
    /\ DownRoom(s) /\ SyncQuiet(s) /\ (Sync => open[s] = <<>>)
    /\ Release(s, "failed")
    /\ sent' = [sent EXCEPT ![s] = Append(@, Signal("onError", 0,
                  IF Bug = "NullError" THEN "null" ELSE cause))]   \* on_error(None)
    /\ UNCHANGED <<emitted, demand, requested, invalid, awake, cutoff, delivered, open,
                   cancels, calls, faulted>>

-----------------------------------------------------------------------------
(* The Subscriber executes the signals, one at a time and in order.        *)

\* Rules 1.3, 2.7, 3.3 -- the call of the Subscriber's on* method by the
\* drain loop (reactive_streams._subscription _emit_*, _deliver_subscribe,
\* _call_terminal), trace "begin_on_<signal>".  A call begun while another
\* is open is a recursion (depth + 1) if the open call made a synchronous
\* request, and a concurrent call (depth 1) otherwise.
Begin(s, sig) ==
    /\ delivered[s] < Len(sent[s])
    /\ Pending(s).sig = sig
    /\ Sync => up[s] = <<>>
    /\ \/ open[s] = <<>>                                                  \* rule 1.3
       \/ Bug = "ConcurrentSignals"
       \/ open[s] # <<>> /\ Bug = "UnboundedRecursion" /\ Sync /\ Top(s).req
    /\ delivered' = [delivered EXCEPT ![s] = @ + 1]
    /\ open' = [open EXCEPT ![s] = Append(@,
                  [sig |-> sig, req |-> FALSE,
                   depth |-> IF open[s] # <<>> /\ Sync /\ Top(s).req
                             THEN Top(s).depth + 1 ELSE 1])]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalid, awake, ref, cutoff, up,
                   sent, cancels, calls, faulted>>

\* Rule 2.13 -- the return (raised = FALSE) or exception (raised = TRUE) of
\* the Subscriber's on* method, trace "end_on_<signal>" with field raised.
\* After an exception the implementation cancels (_subscriber_raised()).
End(s, sig, raised) ==
    /\ open[s] # <<>>
    /\ Top(s).sig = sig
    /\ raised => Raises
    /\ open' = [open EXCEPT ![s] = Pop(@)]
    /\ faulted' = [faulted EXCEPT ![s] = @ \/ raised]
    /\ UNCHANGED <<pub, emitted, demand, requested, invalid, awake, ref, cutoff, up,
                   sent, delivered, cancels, calls>>

BeginOnSubscribe(s) == Begin(s, "onSubscribe")
BeginOnNext(s)      == Begin(s, "onNext")         \* its seq is Pending(s).seq
BeginOnComplete(s)  == Begin(s, "onComplete")
BeginOnError(s)     == Begin(s, "onError")        \* its cause is Pending(s).err
EndOnSubscribe(s, raised) == End(s, "onSubscribe", raised)
EndOnNext(s, raised)      == End(s, "onNext", raised)
EndOnComplete(s, raised)  == End(s, "onComplete", raised)
EndOnError(s, raised)     == End(s, "onError", raised)

-----------------------------------------------------------------------------

Next ==
    \E s \in Subs :
        \/ Subscribe(s)
        \/ \E n \in Sizes : Request(s, n)
        \/ Cancel(s)
        \/ RecvRequest(s)
        \/ RecvCancel(s)
        \/ SendOnSubscribe(s)
        \/ SendOnNext(s)
        \/ SendOnComplete(s)
        \/ \E cause \in ErrorCauses : SendOnError(s, cause)
        \/ BeginOnSubscribe(s) \/ BeginOnNext(s) \/ BeginOnComplete(s) \/ BeginOnError(s)
        \/ \E raised \in BOOLEAN :
              \/ EndOnSubscribe(s, raised) \/ EndOnNext(s, raised)
              \/ EndOnComplete(s, raised) \/ EndOnError(s, raised)

\* Fairness: the Publisher keeps working and the Subscriber's methods return.
\* The Subscriber's own calls (subscribe, request, cancel) are never forced,
\* except the cancel the implementation makes after an on* method raised.
\* Early completion and source failures are possible, never forced.
Fairness ==
    \A s \in Subs :
        /\ WF_vars(RecvRequest(s))
        /\ WF_vars(RecvCancel(s))
        /\ WF_vars(SendOnSubscribe(s))
        /\ WF_vars(SendOnNext(s))
        /\ WF_vars(SendOnComplete(s) /\ emitted[s] = Elements)
        /\ WF_vars(SendOnError(s, "invalid"))
        /\ WF_vars(\E sig \in SigNames : Begin(s, sig))
        /\ WF_vars(\E sig \in SigNames, raised \in BOOLEAN : End(s, sig, raised))
        /\ WF_vars(faulted[s] /\ ~Cancelled(s) /\ Cancel(s))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Safety: one invariant per rule.                                         *)

\* Rule 1.1: onNext signalled <= elements requested, at all times.
Spec101_DeliveredLeqRequestedInv ==
    \A s \in Subs : NextCount(s) <= requested[s]

\* Rule 1.3: signals are serial: never two top-level on* calls at once.
Spec103_SerialSignalsInv ==
    \A s \in Subs : Cardinality({i \in DOMAIN open[s] : open[s][i].depth = 1}) <= 1

\* Rule 1.7: nothing follows onComplete or onError.
Spec107_NothingAfterTerminalInv ==
    \A s \in Subs : \A i \in DOMAIN sent[s] : Terminal(sent[s][i]) => i = Len(sent[s])

\* Rule 1.9: onSubscribe precedes every other signal.
Spec109_OnSubscribeFirstInv ==
    \A s \in Subs : sent[s] # <<>> => sent[s][1].sig = "onSubscribe"

\* Rule 2.12: onSubscribe at most once (per Subscription = per Subscriber here).
Spec212_OnSubscribeOnceInv ==
    \A s \in Subs : Count(sent[s], "onSubscribe") <= 1

\* Rule 3.3: request -> onNext -> request -> ... never nests (depth <= 1).
Spec303_BoundedRecursionInv ==
    \A s \in Subs : \A i \in DOMAIN open[s] : open[s][i].depth <= 1

\* Rule 3.6: a request made after cancel never reaches the Publisher.
Spec306_RequestAfterCancelNopInv ==
    \A s \in Subs :
        /\ \A i, j \in DOMAIN up[s] :
              i < j /\ up[s][i].type = "cancel" => up[s][j].type # "request"
        /\ pub[s] = "cancelled" => \A i \in DOMAIN up[s] : up[s][i].type # "request"

\* Rule 3.8: every valid request(n) adds n to the demand (saturating, 3.17):
\* the Publisher's counter is what was requested minus what was signalled.
Spec308_RequestAddsDemandInv ==
    \A s \in Subs :
        demand[s] = IF Unbounded(s) THEN MaxDemand ELSE requested[s] - NextCount(s)

\* Rule 3.9: after request(n <= 0) the Subscription never completes normally.
Spec309_InvalidRequestNoCompleteInv ==
    \A s \in Subs : invalid[s] => Count(sent[s], "onComplete") = 0

\* Rules 3.12, 1.8: once the cancel is observed, no further signal is committed.
Spec312_SilentAfterCancelInv ==
    \A s \in Subs : pub[s] = "cancelled" => Len(sent[s]) = cutoff[s]

\* Rule 3.17: demand stays within 0..2^63-1 (no overflow) and, once the
\* outstanding demand reached 2^63-1, it is "effectively unbounded" for good.
Spec317_DemandSaturatesInv ==
    \A s \in Subs :
        /\ demand[s] \in 0..MaxDemand
        /\ Unbounded(s) => demand[s] = MaxDemand

-----------------------------------------------------------------------------
(* Liveness, under Fairness.                                               *)

Terminated(s)     == \E i \in 1..delivered[s] : Terminal(sent[s][i])
ErrorDelivered(s) == \E i \in 1..delivered[s] : sent[s][i].sig = "onError"
Stopped(s)        == pub[s] \in Done /\ InFlight(s) = 0 /\ open[s] = <<>>
\* s has outstanding demand and elements left, but no onNext is coming.
Hungry(s) ==
    /\ pub[s] = "active" /\ ~invalid[s]
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

\* Rule 3.8 (no lost wake-up): demand with elements left is never ignored forever.
Spec308_DemandServedProp ==
    \A s \in Subs : []<>~Hungry(s)

\* Rule 3.9: request(n <= 0) is eventually answered by onError (unless cancelled).
Spec309_InvalidRequestErrorsProp ==
    \A s \in Subs : invalid[s] ~> (ErrorDelivered(s) \/ pub[s] = "cancelled")

\* Rule 3.13: cancel eventually drops the Publisher's reference to the Subscriber.
Spec313_DropReferenceProp ==
    \A s \in Subs : Cancelled(s) ~> ~ref[s]

=============================================================================
