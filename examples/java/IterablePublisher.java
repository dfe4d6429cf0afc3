import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An asynchronous Flow.Publisher over an Iterable, in the style of reactive-streams-jvm's
 * AsyncIterablePublisher example: each Subscription is a small actor. request(n) and
 * cancel() only put a message in its inbox; one task at a time, on the Executor, takes the
 * messages in order and runs the Subscriber's methods, so signals are serial (rule 1.3)
 * and request() never calls back into the Subscriber (rule 3.3).
 */
public final class IterablePublisher<T> implements Flow.Publisher<T> {
  private final Iterable<T> elements;
  private final Executor executor;
  private final int batchSize;

  /** {@code batchSize}: elements signalled per task before the next message is read. */
  public IterablePublisher(Iterable<T> elements, Executor executor, int batchSize) {
    this.elements = Objects.requireNonNull(elements);
    this.executor = Objects.requireNonNull(executor);
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be >= 1, got " + batchSize);
    }
    this.batchSize = batchSize;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super T> subscriber) {
    Objects.requireNonNull(subscriber, "rule 1.9: subscribe(null)");
    new Worker(subscriber).post(Start.INSTANCE);
  }

  private enum Start { INSTANCE }

  private enum Cancel { INSTANCE }

  private enum Drain { INSTANCE }

  private static final class Request {
    final long n;

    Request(long n) {
      this.n = n;
    }
  }

  private final class Worker implements Flow.Subscription, Runnable {
    private final ConcurrentLinkedQueue<Object> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    // fields below are touched by the running task only (the flag orders the tasks)
    private Flow.Subscriber<? super T> subscriber;
    private Iterator<T> source;
    private long demand;
    private boolean done;

    Worker(Flow.Subscriber<? super T> subscriber) {
      this.subscriber = subscriber;
    }

    @Override
    public void request(long n) {
      post(new Request(n)); // rule 3.9 is answered by the task, not here (rule 3.16)
    }

    @Override
    public void cancel() {
      post(Cancel.INSTANCE); // rule 3.15: returns at once
    }

    void post(Object message) {
      inbox.offer(message);
      schedule();
    }

    private void schedule() {
      if (scheduled.compareAndSet(false, true)) {
        try {
          executor.execute(this);
        } catch (RejectedExecutionException e) {
          scheduled.set(false);
          done = true; // the executor is gone: nothing can be signalled any more
        }
      }
    }

    @Override
    public void run() {
      try {
        Object message = inbox.poll();
        if (message != null && !done) {
          handle(message);
        }
      } finally {
        scheduled.set(false);
        if (!inbox.isEmpty()) {
          schedule();
        }
      }
    }

    private void handle(Object message) {
      if (message instanceof Request) {
        long n = ((Request) message).n;
        if (n <= 0) { // rule 3.9
          finish(new IllegalArgumentException("rule 3.9: request(n) needs n > 0, got " + n));
          return;
        }
        long sum = demand + n;
        demand = sum < 0 ? Long.MAX_VALUE : sum; // rule 3.17: saturate at 2^63-1
        drain();
      } else if (message == Cancel.INSTANCE) {
        done = true;
        subscriber = null; // rule 3.13: drop the reference
      } else if (message == Start.INSTANCE) {
        start();
      } else if (message == Drain.INSTANCE) {
        drain();
      }
    }

    private void start() {
      try {
        source = elements.iterator();
      } catch (RuntimeException e) {
        call(() -> subscriber.onSubscribe(this)); // rule 1.9: onSubscribe first
        finish(e);
        return;
      }
      if (call(() -> subscriber.onSubscribe(this)) && !source.hasNext()) {
        finish(null); // rule 1.2: an empty source completes without demand
      }
    }

    private void drain() {
      int left = batchSize;
      while (!done && demand > 0 && left > 0) {
        boolean more;
        T element;
        try {
          element = source.next();
          more = source.hasNext();
        } catch (RuntimeException e) {
          finish(e); // rule 1.4
          return;
        }
        if (demand != Long.MAX_VALUE) {
          demand--;
        }
        left--;
        if (!call(() -> subscriber.onNext(element))) {
          return;
        }
        if (!more) {
          finish(null);
          return;
        }
      }
      if (!done && demand > 0) {
        post(Drain.INSTANCE); // let other messages (a cancel) in between batches
      }
    }

    private void finish(Throwable error) {
      Flow.Subscriber<? super T> target = subscriber;
      done = true;
      subscriber = null; // rule 3.13
      if (target != null) {
        call(error == null ? target::onComplete : () -> target.onError(error));
      }
    }

    /** Runs a Subscriber method; one that throws breaks rule 2.13: it is cancelled. */
    private boolean call(Runnable method) {
      try {
        method.run();
        return true;
      } catch (Throwable t) {
        done = true;
        subscriber = null;
        System.err.println("rule 2.13: a Subscriber method threw " + t + "; cancelled");
        return false;
      }
    }
  }
}
