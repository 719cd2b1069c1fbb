package shoptoolkit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.DeltaOptions;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.OptimisticTransaction$;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.delta.commands.DMLUtils;
import org.apache.spark.sql.delta.commands.WriteIntoDelta;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A day's replaceWhere write to a Delta table, its data files written but its commit held back.
 *
 * DataFrameWriter's save writes the files and commits them in one call, with the user metadata fixed
 * before the files are written. The toolkit's one-job load (shoptoolkit/writing/held_write.py) needs the step
 * between: the job that reads, checks and writes the day has run (a refused line failed it), the new
 * files are in the table's folder but in no version, and the lineage is made from what the job wrote;
 * then commit(userMetadata) commits them in one Delta commit, as save would have (with the columns
 * the write added to the schema, under mergeSchema), or abort() deletes them and no version ever names
 * them, nor the schema the write would have given the table. Delta's own WriteIntoDelta does the
 * writing and the replacing; this class only splits its run() in two.
 */
public class HeldWrite {
    private final SparkSession spark;
    private final DeltaLog log;
    private final OptimisticTransaction txn;
    private final DMLUtils.TaggedCommitData<Action> data;
    private final String replaceWhere;

    private HeldWrite(SparkSession spark, DeltaLog log, OptimisticTransaction txn,
                      DMLUtils.TaggedCommitData<Action> data, String replaceWhere) {
        this.spark = spark;
        this.log = log;
        this.txn = txn;
        this.data = data;
        this.replaceWhere = replaceWhere;
    }

    /**
     * Write rows into the table at path, replacing those that match replaceWhere; commit nothing yet.
     * mergeSchema: the rows' columns the table lacks are added to its schema, in the same commit (as
     * save's mergeSchema option adds them); the held transaction keeps the new schema until commit.
     */
    public static HeldWrite write(SparkSession spark, String path, Dataset<Row> rows, String replaceWhere,
                                  boolean mergeSchema) {
        DeltaLog log = DeltaLog.forTable(spark, path);
        OptimisticTransaction txn = log.startTransaction();
        Map<String, String> options = new HashMap<>();
        options.put("replaceWhere", replaceWhere);
        options.put("mergeSchema", String.valueOf(mergeSchema));
        DeltaOptions deltaOptions = new DeltaOptions(scalaMap(options), spark.sessionState().conf());
        WriteIntoDelta command = new WriteIntoDelta(log, SaveMode.Overwrite, deltaOptions,
                CollectionConverters.asScala(new ArrayList<String>()).toList(), scalaMap(new HashMap<>()), rows,
                Option.empty(), Option.empty(), false);
        OptimisticTransaction$.MODULE$.setActive(txn);
        try {
            return new HeldWrite(spark, log, txn, command.writeAndReturnCommitData(txn, spark, Option.empty(), false),
                                 replaceWhere);
        } finally {
            OptimisticTransaction$.MODULE$.clearActive();
        }
    }

    /** The paths, relative to the table, of the data files written and not yet committed. */
    public List<String> added() {
        List<String> paths = new ArrayList<>();
        for (Action action : CollectionConverters.asJava(data.actions())) {
            if (action instanceof AddFile) {
                paths.add(((AddFile) action).path());
            }
        }
        return paths;
    }

    /** Commit the write, as DataFrameWriter's save would, with userMetadata; the version committed. */
    public long commit(String userMetadata) {
        DeltaOperations.Write operation = new DeltaOperations.Write(SaveMode.Overwrite,
                Option.apply(CollectionConverters.asScala(new ArrayList<String>()).toList()),
                Option.apply(replaceWhere), Option.apply(userMetadata), Option.empty(), Option.empty(),
                Option.empty(), Option.empty(), Option.empty());
        OptimisticTransaction$.MODULE$.setActive(txn);
        try {
            return (Long) txn.commitIfNeeded(data.actions(), operation, data.stringTags()).get();
        } finally {
            OptimisticTransaction$.MODULE$.clearActive();
        }
    }

    /** Delete the written files: no version names them, and none will. */
    public void abort() throws IOException, java.net.URISyntaxException {
        Path table = log.dataPath();
        FileSystem files = table.getFileSystem(spark.sessionState().newHadoopConf());
        for (String added : added()) {  // an action's path is a URI, relative to the table
            files.delete(new Path(table, new Path(new java.net.URI(added))), false);
        }
    }

    private static scala.collection.immutable.Map<String, String> scalaMap(Map<String, String> entries) {
        return scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(entries));
    }
}
