package ark.broker.bench;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;

import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A load generator in its own process, so its CPU is not the broker's and it can be pinned or run
 * elsewhere: {@code clients} loops, each creating a question over REST and then answering it.
 * It runs {@code warmupPairs} and prints {@code warm}; then, for every {@code go} line on stdin, runs {@code pairs},
 * writes their create and answer latencies to {@code samplesFile} and prints {@code done <pairs> <errors> <seconds>};
 * it ends with stdin (so its CPU time stays readable in {@code /proc} until the benchmark has read it).
 * Arguments: {@code host port clients warmupPairs pairs samplesFile}.
 */
public final class LoadGenerator {

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    int clients = Integer.parseInt(args[2]);
    int warmupPairs = Integer.parseInt(args[3]);
    int pairs = Integer.parseInt(args[4]);
    Path samplesFile = Path.of(args[5]);
    Vertx vertx = Vertx.vertx();
    HttpClient http = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(host).setDefaultPort(port),
        new PoolOptions().setHttp1MaxSize(clients));
    pairs(http, clients, warmupPairs, new Percentiles(), new Percentiles(), new AtomicLong());
    System.out.println("warm");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String command = in.readLine(); "go".equals(command); command = in.readLine()) {
      Percentiles creates = new Percentiles();
      Percentiles answers = new Percentiles();
      AtomicLong errors = new AtomicLong();
      long started = System.nanoTime();
      pairs(http, clients, pairs, creates, answers, errors);
      double seconds = (System.nanoTime() - started) / 1e9;
      try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(samplesFile))) {
        creates.writeTo(out);
        answers.writeTo(out);
      }
      System.out.printf("done %d %d %.3f%n", pairs, errors.get(), seconds);
      System.out.flush();
    }
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** {@code total} create+answer pairs over {@code clients} loops, each waiting for its previous request. */
  static void pairs(HttpClient http, int clients, int total, Percentiles creates, Percentiles answers,
                            AtomicLong errors) throws Exception {
    AtomicInteger next = new AtomicInteger();
    List<Future<Void>> loops = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      Promise<Void> finished = Promise.promise();
      pair(http, total, next, creates, answers, errors, finished);
      loops.add(finished.future());
    }
    Future.all(loops).await(total + 60L, TimeUnit.SECONDS);
  }

  private static void pair(HttpClient http, int total, AtomicInteger next, Percentiles creates, Percentiles answers,
                           AtomicLong errors, Promise<Void> finished) {
    int n = next.getAndIncrement();
    if (n >= total) {
      finished.complete();
      return;
    }
    long sent = System.nanoTime();
    CoreBenchmark.request(http, false, null, null, n)
        .compose(id -> {
          long answering = System.nanoTime();
          creates.add(answering - sent);
          return CoreBenchmark.request(http, true, id, null, n).onSuccess(answered -> answers.add(System.nanoTime() - answering));
        })
        .onComplete(result -> {
          if (result.failed()) {
            errors.incrementAndGet();
          }
          pair(http, total, next, creates, answers, errors, finished);
        });
  }

  private LoadGenerator() {
  }
}
