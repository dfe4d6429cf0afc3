import java.util.concurrent.ExecutorService;
import java.util.concurrent.Flow;

/**
 * Deliberately broken, for the trace checker to reject: every request(n) is answered by
 * n + 1 elements, one more than was asked for (rule 1.1), then onComplete. Signals run on
 * one executor thread, in order.
 */
public final class GreedyPublisher implements Flow.Publisher<Integer> {
  private final ExecutorService executor;

  public GreedyPublisher(ExecutorService executor) {
    this.executor = executor;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super Integer> subscriber) {
    Flow.Subscription subscription =
        new Flow.Subscription() {
          private int next;

          @Override
          public void request(long n) {
            executor.execute(
                () -> {
                  for (long k = 0; k <= n; k++) { // the defect: <= instead of <
                    subscriber.onNext(next++);
                  }
                  subscriber.onComplete();
                });
          }

          @Override
          public void cancel() {}
        };
    executor.execute(() -> subscriber.onSubscribe(subscription));
  }
}
