// SPDX-License-Identifier: Apache-2.0
import java.io.FileWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import org.apache.spark.sql.ForeachWriter;
import org.apache.spark.sql.Row;

/**
 * A foreach sink on the JVM for the latency benchmark: it notes the time each row reaches
 * process(), one JSON line per row (the lines tests/support/realtime.py's deliveries() reads). PySpark's
 * foreach cannot serve here: its rows reach Python in growing batches, in real-time mode at
 * the end of the task.
 */
public class LatencySink extends ForeachWriter<Row> {
  private final String directory;
  private transient Writer out;
  private transient long batch;

  public LatencySink(String directory) {
    this.directory = directory;
  }

  @Override
  public boolean open(long partitionId, long epochId) {
    batch = epochId;
    try {
      out = new FileWriter(directory + "/" + partitionId + "-" + epochId + "-" + UUID.randomUUID() + ".jsonl",
          StandardCharsets.UTF_8, true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return true;
  }

  @Override
  public void process(Row row) {
    double sinkTime = System.currentTimeMillis() / 1000.0;
    String data = new String((byte[]) row.get(1), StandardCharsets.UTF_8);
    try {
      out.write("{\"seq\": \"" + row.getString(4) + "\", \"shard\": \"" + row.getString(3) + "\", \"data\": \""
          + data + "\", \"batch\": " + batch + ", \"sinkTime\": " + sinkTime + "}\n");
      // Seen at once by the benchmark, which waits for every record before a long batch ends.
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close(Throwable error) {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
