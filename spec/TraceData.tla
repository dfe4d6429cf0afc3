\* The kill model's batch, written by spec/trace_kill.py from tests/traces/:
\* 1: tests/traces/v2/raise_never_cancelled.jsonl
\* 2: tests/traces/v2/valid/raise_then_cancel.jsonl
\* 3: tests/traces/v2/request_raises.jsonl
\* 4: tests/traces/v2/cancel_raises.jsonl
\* 5: tests/traces/v2/valid/request_and_cancel_return.jsonl
\* 6: tests/traces/v2/on_next_after_request_0_and_no_error.jsonl
\* 7: tests/traces/v2/valid/on_next_before_the_3_9_error.jsonl
\* 8: tests/traces/v2/valid/range_publisher_async.jsonl
---- MODULE TraceData ----
EXTENDS Integers, Sequences
TraceSync == FALSE
TraceSubs == 1..1
TraceThreads == 1..2
TraceDepth == 1
TraceElements == 3
TraceSizes == {0, 1, 2, 3}
TraceMaxDemand == 1073741824
TraceMaxCalls == 2
TraceMaxCancels == 1
TraceQueueBound == 20
Quiescent == << TRUE, TRUE, TRUE, TRUE, TRUE, TRUE, TRUE, TRUE >>
Hint == << 0, 0, 0, 0, 0, 0, 0, 0 >>
Traces == <<
  << <<1,0,1>>,
<<8,0,1>>,
<<12,0,1>>,
<<16,0,1>>,
<<2,2,1>>,
<<6,2,1>>,
<<3,0,1>>,
<<9,1,1>>,
<<13,1,1>>,
<<17,1,1>> >>,
  << <<1,0,1>>,
<<8,0,1>>,
<<12,0,1>>,
<<16,0,1>>,
<<2,2,1>>,
<<6,2,1>>,
<<3,0,1>>,
<<9,1,1>>,
<<13,1,1>>,
<<17,1,1>>,
<<4,0,1>>,
<<5,0,1>>,
<<7,0,2>> >>,
  << <<1,0,1>>,
<<8,0,1>>,
<<12,0,1>>,
<<16,0,1>>,
<<2,1,1>>,
<<6,1,1>>,
<<3,1,1>> >>,
  << <<1,0,1>>,
<<8,0,1>>,
<<12,0,1>>,
<<16,0,1>>,
<<4,0,1>>,
<<7,0,1>>,
<<5,1,1>> >>,
  << <<1,0,1>>,
<<8,0,1>>,
<<12,0,1>>,
<<16,0,1>>,
<<2,1,1>>,
<<6,1,1>>,
<<3,0,1>>,
<<9,1,1>>,
<<13,1,1>>,
<<17,0,1>>,
<<4,0,1>>,
<<7,0,1>>,
<<5,0,1>> >>,
  << <<1,0,1>>,
<<8,0,1>>,
<<12,0,1>>,
<<16,0,1>>,
<<2,2,1>>,
<<6,2,1>>,
<<3,0,1>>,
<<9,1,1>>,
<<13,1,1>>,
<<17,0,1>>,
<<2,0,1>>,
<<6,0,1>>,
<<3,0,1>>,
<<9,2,1>>,
<<13,2,1>>,
<<17,0,1>> >>,
  << <<1,0,1>>,
<<8,0,1>>,
<<12,0,1>>,
<<16,0,1>>,
<<2,2,1>>,
<<6,2,1>>,
<<3,0,1>>,
<<9,1,1>>,
<<13,1,1>>,
<<17,0,1>>,
<<2,0,1>>,
<<6,0,1>>,
<<3,0,1>>,
<<9,2,1>>,
<<13,2,1>>,
<<17,0,1>>,
<<11,2,1>>,
<<15,0,1>>,
<<19,0,1>> >>,
  << <<1,0,1>>,
<<8,0,1>>,
<<12,0,1>>,
<<2,3,1>>,
<<6,3,1>>,
<<9,1,1>>,
<<13,1,1>>,
<<17,0,1>>,
<<9,2,1>>,
<<13,2,1>>,
<<17,0,1>>,
<<9,3,1>>,
<<13,3,1>>,
<<17,0,1>>,
<<10,0,1>>,
<<14,0,1>>,
<<18,0,1>>,
<<3,0,1>>,
<<16,0,1>> >>
>>
Expect == << FALSE, TRUE, FALSE, FALSE, TRUE, FALSE, TRUE, TRUE >>
====
