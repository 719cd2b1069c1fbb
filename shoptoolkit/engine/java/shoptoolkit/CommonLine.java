package shoptoolkit;

import java.nio.charset.StandardCharsets;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;

/**
 * A till's common line found and typed in one pass over its bytes, for the one job of a big day's load
 * (shoptoolkit/till/in_write.py): what rules_sql.common_order accepts for the till's columns in its order,
 * order_id,customer_id,amount,ordered_at, on the file's day, with the values rules_sql.line_values gives
 * it. Any other line is null here and goes through every rule, as in the Spark check. Measured against the
 * pattern, the split and the casts it replaces: docs/benchmarks.md.
 *
 * The forms are rules_sql.COMMON's and TIME's: order_id [0-9]{1,18}; customer_id up to 64 spaces, one
 * printable ASCII character that is no space, quote or comma, then up to 1000 of those or spaces; amount
 * [0-9]{1,10}(\.[0-9]{1,2})?; ordered_at YYYY-MM-DDTHH:MM:SS with its date the file's day and its time a
 * real one; one CR at most at the line's end. Every character they take is ASCII, so the line's bytes say
 * what its text does: a byte of 0x80 or more leaves the line to the rules.
 *
 * shop_common_line(raw BINARY, day STRING): a struct of order_id BIGINT, customer_id STRING, amount
 * DECIMAL(12,2) and micros BIGINT (ordered_at read as UTC, for timestamp_micros: null when its date is no
 * real one, where the cast of the time is null too, and the load refuses the line).
 */
public class CommonLine implements UDF2<byte[], String, Row> {
    private static final long serialVersionUID = 1L;

    public static final StructType VALUES = new StructType()
            .add("order_id", DataTypes.LongType, false).add("customer_id", DataTypes.StringType, false)
            .add("amount", DataTypes.createDecimalType(12, 2), false).add("micros", DataTypes.LongType, true);

    /** Register shop_common_line in spark's session. */
    public static void register(SparkSession spark) {
        spark.udf().register("shop_common_line", new CommonLine(), VALUES);
    }

    private static boolean digit(int b) {
        return b >= '0' && b <= '9';
    }

    /** A customer_id character: printable ASCII or space, but no quote and no comma. */
    private static boolean customer(int b) {
        return b >= 0x20 && b <= 0x7e && b != '"' && b != ',';
    }

    @Override
    public Row call(byte[] line, String day) {
        if (line == null || day == null || day.length() != 10) {
            return null;
        }
        int end = line.length;
        if (end > 0 && line[end - 1] == '\r') {
            end--;
        }
        // ordered_at is the last 19 characters: the rest, its comma before it, is the first three fields.
        int at = end - 19;
        if (at < 6 || line[at - 1] != ',') {  // the least: "0,x,0," before it
            return null;
        }
        int i = 0;
        long id = 0;
        while (i < at && digit(line[i])) {
            id = id * 10 + (line[i++] - '0');
            if (i > 18) {
                return null;
            }
        }
        if (i == 0 || line[i++] != ',') {
            return null;
        }
        int first = i;  // customer_id: up to 64 spaces, a character that is not a space, up to 1000 more
        while (i < at && line[i] == ' ') {
            i++;
        }
        if (i - first > 64 || i >= at || line[i] == ' ' || !customer(line[i])) {
            return null;
        }
        int lead = ++i;
        while (i < at && customer(line[i])) {
            i++;
        }
        if (i - lead > 1000 || line[i] != ',') {
            return null;
        }
        String customerId = new String(line, first, i - first, StandardCharsets.ISO_8859_1);
        int units = ++i;  // amount: 1 to 10 digits, then perhaps a point and 1 or 2 digits, up to ordered_at's comma
        long cents = 0;
        while (i < at && digit(line[i])) {
            cents = cents * 10 + (line[i++] - '0');
        }
        if (i == units || i - units > 10) {
            return null;
        }
        cents *= 100;
        if (line[i] == '.') {
            int point = ++i;
            if (i < at && digit(line[i])) {
                cents += 10 * (line[i++] - '0');
            }
            if (i < at && digit(line[i])) {
                cents += line[i++] - '0';
            }
            if (i == point) {
                return null;
            }
        }
        if (i != at - 1) {  // the comma before ordered_at
            return null;
        }
        for (int k = 0; k < 10; k++) {  // the date: the file's day, character by character
            if (line[at + k] != day.charAt(k)) {
                return null;
            }
        }
        if (!digit(line[at]) || !digit(line[at + 1]) || !digit(line[at + 2]) || !digit(line[at + 3])
                || line[at + 4] != '-' || !digit(line[at + 5]) || !digit(line[at + 6]) || line[at + 7] != '-'
                || !digit(line[at + 8]) || !digit(line[at + 9]) || line[at + 10] != 'T') {
            return null;
        }
        int h1 = line[at + 11], h2 = line[at + 12], m1 = line[at + 14], m2 = line[at + 15];
        int s1 = line[at + 17], s2 = line[at + 18];
        if (!(((h1 == '0' || h1 == '1') && digit(h2)) || (h1 == '2' && h2 >= '0' && h2 <= '3'))
                || line[at + 13] != ':' || m1 < '0' || m1 > '5' || !digit(m2)
                || line[at + 16] != ':' || s1 < '0' || s1 > '5' || !digit(s2)) {
            return null;
        }
        int year = number(line, at, 4), month = number(line, at + 5, 2), dayOfMonth = number(line, at + 8, 2);
        Long seconds = null;  // the cast's null for a date that does not exist
        if (month >= 1 && month <= 12 && dayOfMonth >= 1 && dayOfMonth <= monthDays(year, month)) {
            seconds = epochDay(year, month, dayOfMonth) * 86400L
                    + (h1 - '0') * 36000L + (h2 - '0') * 3600L + (m1 - '0') * 600L + (m2 - '0') * 60L
                    + (s1 - '0') * 10L + (s2 - '0');
        }
        return RowFactory.create(id, customerId, Decimal.createUnsafe(cents, 12, 2),
                                 seconds == null ? null : seconds * 1_000_000L);
    }

    private static int number(byte[] line, int from, int digits) {
        int value = 0;
        for (int k = from; k < from + digits; k++) {
            value = value * 10 + (line[k] - '0');
        }
        return value;
    }

    /** The days of a month in the proleptic Gregorian calendar (java.time's, Spark's). */
    private static int monthDays(int year, int month) {
        if (month == 2) {
            return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
        }
        return (month == 4 || month == 6 || month == 9 || month == 11) ? 30 : 31;
    }

    /** Days since 1970-01-01 of a real date (years 0 to 9999), as LocalDate.toEpochDay. */
    private static long epochDay(int year, int month, int dayOfMonth) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yoe = y - era * 400;
        long doy = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + dayOfMonth - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
    }
}
