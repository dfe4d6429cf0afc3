import java.io.FileWriter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;

/**
 * Drives {@link TraceSubscriber} against the JDK's SubmissionPublisher and writes a trace:
 * {@code java TraceDemo OUT.jsonl [ITEMS]}. Subscription 1 requests one element at a time
 * until completion; subscription 2 requests 5 and cancels inside its third onNext;
 * subscription 3 requests 0, which the publisher answers with onError(IllegalArgumentException)
 * (rule 3.9). The
 * executor is shut down and awaited before the file is closed, so the trace is quiescent.
 */
public final class TraceDemo {
  private TraceDemo() {}

  /** Requests {@code batch} up front and one more per element; cancels at {@code cancelAt}. */
  static final class Consumer implements Flow.Subscriber<Integer> {
    private final long batch;
    private final int cancelAt;
    private final CountDownLatch done;
    private Flow.Subscription subscription;
    private int received;

    Consumer(long batch, int cancelAt, CountDownLatch done) {
      this.batch = batch;
      this.cancelAt = cancelAt;
      this.done = done;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s; // rule 3.10: store it before requesting
      s.request(batch);
    }

    @Override
    public void onNext(Integer item) {
      received++;
      if (received == cancelAt) {
        subscription.cancel();
        done.countDown();
      } else if (batch == 1) {
        subscription.request(1);
      }
    }

    @Override
    public void onError(Throwable t) {
      done.countDown();
    }

    @Override
    public void onComplete() {
      done.countDown();
    }
  }

  public static void main(String[] args) throws Exception {
    int items = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    ExecutorService executor = Executors.newFixedThreadPool(2);
    CountDownLatch done = new CountDownLatch(3);
    try (TraceSubscriber.Log log = new TraceSubscriber.Log(new FileWriter(args[0]), "async")) {
      SubmissionPublisher<Integer> publisher = new SubmissionPublisher<>(executor, 8);
      TraceSubscriber.subscribe(publisher, new Consumer(1, -1, done), log);
      TraceSubscriber.subscribe(publisher, new Consumer(5, 3, done), log);
      TraceSubscriber.subscribe(publisher, new Consumer(0, -1, done), log);
      for (int i = 0; i < items; i++) {
        publisher.submit(i);
      }
      publisher.close();
      if (!done.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the subscribers did not finish within 30 s");
      }
      executor.shutdown();
      if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the executor did not quiesce within 30 s");
      }
    }
  }
}
