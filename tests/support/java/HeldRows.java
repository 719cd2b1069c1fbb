/**
 * A hold inside a write's Spark job without a Python worker: tests/support/holding.py's held() calls
 * HeldRows.hold(folder, name) through Spark SQL's reflect() on every row the write commits, in the
 * driver's JVM of a local session whose spark.jars has this class's JAR (holding.py --build makes it).
 *
 * Until folder/go exists, the first row creates folder/name.held and waits; once go exists every row
 * passes at once, so a retry is not held. reflect() is nondeterministic to Spark's optimizer, so the
 * filter is neither folded at planning nor moved out of the write.
 */
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

public final class HeldRows {
    private HeldRows() {
    }

    public static boolean hold(String folder, String name) throws IOException, InterruptedException {
        Path go = Path.of(folder, "go");
        if (Files.exists(go)) {
            return true;
        }
        Path marker = Path.of(folder, name + ".held");
        try {
            Files.createFile(marker);
        } catch (FileAlreadyExistsException again) {
            // a later row of the same write: its marker is there
        }
        while (!Files.exists(go)) {
            Thread.sleep(50);
        }
        return true;
    }
}
