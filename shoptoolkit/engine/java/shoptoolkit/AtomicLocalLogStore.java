package shoptoolkit;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.UUID;

import io.delta.storage.HDFSLogStore;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Delta's log store for file: paths, safe when several processes commit to one table at once.
 *
 * Delta commits version N by creating _delta_log/N.json only if no other writer has. Its default
 * store for file: paths checks that the file is absent, then renames a temporary file onto it; on a
 * local disk that rename replaces an existing file, so two processes that check at the same moment
 * both "commit" N and the second silently replaces the first. This store writes the commit to a
 * temporary file and then hard-links it under its final name: the operating system creates the link
 * only if the name is free, in one step, so exactly one writer of N wins and the others get
 * FileAlreadyExistsException, which Delta turns into a retry or a conflict error.
 * Writes that may overwrite (Delta's _last_checkpoint) go to the default store.
 */
public class AtomicLocalLogStore extends HDFSLogStore {

    public AtomicLocalLogStore(Configuration hadoopConf) {
        super(hadoopConf);
    }

    @Override
    public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
            throws IOException {
        if (overwrite || !"file".equals(path.toUri().getScheme())) {
            super.write(path, actions, overwrite, hadoopConf);
            return;
        }
        java.nio.file.Path target = Paths.get(path.toUri());
        if (Files.exists(target)) {
            throw new FileAlreadyExistsException(path.toString());
        }
        java.nio.file.Path temp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW)) {
                while (actions.hasNext()) {
                    out.write(actions.next());
                    out.write('\n');
                }
            }
            publish(temp, target);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Make the complete file temp visible as target, only if target does not exist yet. */
    public static void publish(java.nio.file.Path temp, java.nio.file.Path target) throws IOException {
        Files.createLink(target, temp);  // atomic: fails with FileAlreadyExistsException when target exists
    }
}
