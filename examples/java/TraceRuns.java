import java.io.FileWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Records the Java traces the test suite validates: {@code java TraceRuns OUTDIR [ITEMS]}
 * writes, with {@link TraceSubscriber}:
 *
 * <ul>
 *   <li>{@code submission_publisher.jsonl}: the JDK's SubmissionPublisher ({@link TraceDemo});
 *   <li>{@code iterable_publisher.jsonl}: {@link IterablePublisher} (two executor threads)
 *       with four Subscribers: one element at a time; 5 then cancel inside the third onNext;
 *       request(0), answered by onError(IllegalArgumentException) (rule 3.9); and
 *       Long.MAX_VALUE (rule 3.17);
 *   <li>{@code greedy_publisher.jsonl}: {@link GreedyPublisher}, which breaks rule 1.1.
 * </ul>
 *
 * Each run ends with its executor shut down and awaited, so every trace is quiescent.
 */
public final class TraceRuns {
  private TraceRuns() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    int items = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    TraceDemo.main(new String[] {out.resolve("submission_publisher.jsonl").toString(), "" + items});
    iterable(out.resolve("iterable_publisher.jsonl"), items);
    greedy(out.resolve("greedy_publisher.jsonl"));
  }

  static void iterable(Path file, int items) throws Exception {
    List<Integer> elements = new ArrayList<>();
    for (int i = 0; i < items; i++) {
      elements.add(i);
    }
    ExecutorService executor = Executors.newFixedThreadPool(2);
    CountDownLatch done = new CountDownLatch(4);
    try (TraceSubscriber.Log log = new TraceSubscriber.Log(new FileWriter(file.toFile()), "async")) {
      IterablePublisher<Integer> publisher = new IterablePublisher<>(elements, executor, 4);
      TraceSubscriber.subscribe(publisher, new TraceDemo.Consumer(1, -1, done), log);
      TraceSubscriber.subscribe(publisher, new TraceDemo.Consumer(5, 3, done), log);
      TraceSubscriber.subscribe(publisher, new TraceDemo.Consumer(0, -1, done), log);
      TraceSubscriber.subscribe(publisher, new TraceDemo.Consumer(Long.MAX_VALUE, -1, done), log);
      finish(done, executor);
    }
  }

  static void greedy(Path file) throws Exception {
    ExecutorService executor = Executors.newSingleThreadExecutor();
    CountDownLatch done = new CountDownLatch(1);
    try (TraceSubscriber.Log log = new TraceSubscriber.Log(new FileWriter(file.toFile()), "async")) {
      TraceSubscriber.subscribe(
          new GreedyPublisher(executor), new TraceDemo.Consumer(2, -1, done), log);
      finish(done, executor);
    }
  }

  private static void finish(CountDownLatch done, ExecutorService executor) throws Exception {
    if (!done.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the subscribers did not finish within 30 s");
    }
    executor.shutdown();
    if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the executor did not quiesce within 30 s");
    }
  }
}
