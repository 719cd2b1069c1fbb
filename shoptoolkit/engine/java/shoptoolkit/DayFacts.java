package shoptoolkit;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Aggregator;
import org.apache.spark.sql.functions;
import org.roaringbitmap.longlong.Roaring64NavigableMap;
import scala.Tuple3;

/**
 * Each day's facts of the rows a write's own job writes, as one aggregate that Dataset.observe computes
 * in the write's tasks (shoptoolkit/writing/held_write.py), so that no second pass over the rows is needed.
 *
 * Spark's observed metrics are one row of aggregates over all the rows; the lineage of a commit of many
 * days needs them by day. This aggregate keeps, for each day (its days since 1970), the rows, the lowest
 * and highest order id and the two 32-bit halves of the rows' hashes summed (row_values.py's digest), and
 * one bitmap of every order id (Roaring, as Spark's own map statuses use): fewer distinct ids than rows
 * means an id comes twice, in one day's file or in two. Its result is text, a line a day:
 * "rows distinct" first, then "day rows lowest highest high low".
 */
public class DayFacts extends Aggregator<Tuple3<Integer, Long, Long>, DayFacts.Facts, String> {
    /** The aggregate's buffer: the facts by day, every id seen, the rows counted. */
    public static class Facts implements Serializable {
        final TreeMap<Integer, long[]> days = new TreeMap<>();
        final Roaring64NavigableMap ids = new Roaring64NavigableMap();
        long rows;
    }

    /** Register the aggregate in spark's session as shop_day_facts(day INT, order_id BIGINT, hash BIGINT). */
    public static void register(SparkSession spark) {
        Encoder<Tuple3<Integer, Long, Long>> input = Encoders.tuple(Encoders.INT(), Encoders.LONG(), Encoders.LONG());
        spark.udf().register("shop_day_facts", functions.udaf(new DayFacts(), input));
    }

    @Override
    public Facts zero() {
        return new Facts();
    }

    @Override
    public Facts reduce(Facts facts, Tuple3<Integer, Long, Long> row) {
        long id = row._2(), hash = row._3();
        long[] day = facts.days.computeIfAbsent(row._1(), key -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, 0, 0});
        day[0] += 1;
        day[1] = Math.min(day[1], id);
        day[2] = Math.max(day[2], id);
        day[3] += hash >> 32;
        day[4] += hash & 0xFFFFFFFFL;
        facts.ids.addLong(id);
        facts.rows += 1;
        return facts;
    }

    @Override
    public Facts merge(Facts one, Facts other) {
        for (Map.Entry<Integer, long[]> entry : other.days.entrySet()) {
            long[] theirs = entry.getValue();
            long[] ours = one.days.computeIfAbsent(entry.getKey(), key -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, 0, 0});
            ours[0] += theirs[0];
            ours[1] = Math.min(ours[1], theirs[1]);
            ours[2] = Math.max(ours[2], theirs[2]);
            ours[3] += theirs[3];
            ours[4] += theirs[4];
        }
        one.ids.or(other.ids);
        one.rows += other.rows;
        return one;
    }

    @Override
    public String finish(Facts facts) {
        StringBuilder text = new StringBuilder(facts.rows + " " + facts.ids.getLongCardinality());
        for (Map.Entry<Integer, long[]> entry : facts.days.entrySet()) {
            long[] day = entry.getValue();
            text.append('\n').append(entry.getKey());
            for (long value : day) {
                text.append(' ').append(value);
            }
        }
        return text.toString();
    }

    @Override
    public Encoder<Facts> bufferEncoder() {
        return Encoders.javaSerialization(Facts.class);
    }

    @Override
    public Encoder<String> outputEncoder() {
        return Encoders.STRING();
    }
}
