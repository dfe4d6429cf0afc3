import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps any java.util.concurrent.Flow.Subscriber and writes the subscriber-side events of
 * the Reactive Streams trace format, version 2 (JSON Lines, docs/trace-format.md):
 * subscribe, request/end_request and cancel/end_cancel around each call (with raised: a
 * call that throws breaks rule 3.15 or 3.16), begin_on_* and end_on_* around each signal,
 * every event with its thread, and the error's class as error_type. The resulting file is checked against the TLA+ specification by
 * {@code python -m reactive_streams.trace validate FILE}.
 *
 * <p>Use {@link #subscribe} instead of {@code publisher.subscribe(subscriber)}, so the
 * subscribe call is recorded too. All subscriptions sharing one {@link Log} share its
 * logical clock; every line is written under the log's lock, so file order is clock order.
 */
public final class TraceSubscriber<T> implements Flow.Subscriber<T> {

  /** One trace file: the header, a global logical clock, subscription ids. */
  public static final class Log implements AutoCloseable {
    private final Writer out;
    private long clock;
    private final AtomicInteger ids = new AtomicInteger();

    public Log(Writer out, String mode) {
      this.out = out;
      line("{\"format\":\"reactive-streams-trace\",\"version\":2,\"mode\":\"" + mode
          + "\",\"view\":\"subscriber\",\"quiescent\":true}");
    }

    int newSubscription() {
      return ids.incrementAndGet();
    }

    synchronized void event(int sub, String sig, String fields) {
      clock++;
      line("{\"clock\":" + clock + ",\"sub\":" + sub + ",\"sig\":\"" + sig + "\"" + fields
          + ",\"thread\":" + Thread.currentThread().getId() + "}");
    }

    private synchronized void line(String text) {
      try {
        out.write(text);
        out.write('\n');
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public synchronized void close() throws IOException {
      out.close();
    }
  }

  /** Records {@code subscribe}, then subscribes a traced wrapper of {@code delegate}. */
  public static <T> TraceSubscriber<T> subscribe(
      Flow.Publisher<T> publisher, Flow.Subscriber<? super T> delegate, Log log) {
    TraceSubscriber<T> traced = new TraceSubscriber<>(delegate, log);
    log.event(traced.id, "subscribe", "");
    publisher.subscribe(traced);
    return traced;
  }

  private final Flow.Subscriber<? super T> delegate;
  private final Log log;
  private final int id;
  private int seq; // rule 1.3: signals are serial, so no lock is needed

  private TraceSubscriber(Flow.Subscriber<? super T> delegate, Log log) {
    this.delegate = delegate;
    this.log = log;
    this.id = log.newSubscription();
  }

  /** The Subscription handed to the delegate: records request(n) and cancel(). */
  private final class TracedSubscription implements Flow.Subscription {
    private final Flow.Subscription inner;

    TracedSubscription(Flow.Subscription inner) {
      this.inner = inner;
    }

    @Override
    public void request(long n) {
      log.event(id, "request", ",\"n\":" + n);
      boolean raised = true;
      try {
        inner.request(n);
        raised = false;
      } finally { // rules 2.7, 3.3: the call's extent; rule 3.16: it returns normally
        log.event(id, "end_request", ",\"raised\":" + raised);
      }
    }

    @Override
    public void cancel() {
      log.event(id, "cancel", "");
      boolean raised = true;
      try {
        inner.cancel();
        raised = false;
      } finally { // rule 3.15: cancel returns normally
        log.event(id, "end_cancel", ",\"raised\":" + raised);
      }
    }
  }

  private interface Signal {
    void run();
  }

  private void traced(String signal, String fields, Signal call) {
    log.event(id, "begin_" + signal, fields);
    boolean raised = true;
    try {
      call.run();
      raised = false;
    } finally {
      log.event(id, "end_" + signal, fields + ",\"raised\":" + raised);
    }
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    if (subscription == null) {
      throw new NullPointerException("rule 2.13: onSubscribe(null)");
    }
    traced("on_subscribe", "", () -> delegate.onSubscribe(new TracedSubscription(subscription)));
  }

  @Override
  public void onNext(T item) {
    if (item == null) {
      throw new NullPointerException("rule 2.13: onNext(null)");
    }
    seq++;
    traced("on_next", ",\"seq\":" + seq, () -> delegate.onNext(item));
  }

  @Override
  public void onError(Throwable error) {
    if (error == null) {
      throw new NullPointerException("rule 2.13: onError(null)");
    }
    // rule 3.9's answer is known by its class (IllegalArgumentException)
    String fields =
        ",\"error_type\":" + quote(error.getClass().getName()) + ",\"error\":"
            + quote(error.getClass().getSimpleName() + ": " + error.getMessage());
    traced("on_error", fields, () -> delegate.onError(error));
  }

  @Override
  public void onComplete() {
    traced("on_complete", "", delegate::onComplete);
  }

  /** A JSON string literal (control characters and lone surrogates escaped). */
  static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || Character.isSurrogate(c)) {
        boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length()
            && Character.isLowSurrogate(text.charAt(i + 1));
        if (pair) {
          out.append(c).append(text.charAt(++i));
        } else {
          out.append(Character.isSurrogate(c) ? '?' : ' ');
        }
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
