package shoptoolkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.Arrays;
import java.util.Iterator;

import io.delta.storage.HadoopFileSystemLogStore;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Delta's log store for object storage whose PUT takes If-None-Match (AWS S3 since 2024, and servers that
 * copy it), safe when several processes commit to one table at once without a lock service beside it.
 *
 * Delta commits version N by creating _delta_log/N.json only if no other writer has. Its own S3 store
 * checks for the key and then puts it, so two drivers that check at the same moment both "commit" N and
 * the second replaces the first; its multi-cluster store needs DynamoDB. This store writes the commit
 * with S3A's conditional create (fs.option.create.conditional.overwrite): the store makes the object
 * appear at close only if nothing is at the key, so exactly one writer of N wins and the others get
 * FileAlreadyExistsException, which Delta turns into a retry or a conflict error. When the put is refused
 * but the object there holds exactly this commit's bytes, an earlier try of this same put landed (its
 * answer lost, the client retrying): that is this writer's commit, not another's.
 * A PUT is whole or absent, so a partial commit file is never visible.
 */
public class ConditionalPutLogStore extends HadoopFileSystemLogStore {

    public static final String CONDITIONAL = "fs.option.create.conditional.overwrite";

    public ConditionalPutLogStore(Configuration hadoopConf) {
        super(hadoopConf);
    }

    @Override
    public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
            throws IOException {
        byte[] body = joined(actions);
        FileSystem fs = path.getFileSystem(hadoopConf);
        if (overwrite) {
            try (FSDataOutputStream out = fs.create(path, true)) {
                out.write(body);
            }
            return;
        }
        try {
            putIfAbsent(fs, path, body);
        } catch (IOException refused) {
            if (!fs.exists(path)) {
                throw refused;  // not a refusal for the key: the store or the network failed
            }
            if (!Arrays.equals(readAll(fs, path), body)) {
                throw new FileAlreadyExistsException(path.toString());
            }
        }
    }

    /** Create path holding body, only if nothing is at path; an IOException from close() if something is. */
    public static void putIfAbsent(FileSystem fs, Path path, byte[] body) throws IOException {
        FSDataOutputStreamBuilder<?, ?> create = fs.createFile(path);
        create.opt(CONDITIONAL, true);
        try (FSDataOutputStream out = create.build()) {
            out.write(body);
        }
    }

    @Override
    public Boolean isPartialWriteVisible(Path path, Configuration hadoopConf) {
        return false;
    }

    static byte[] joined(Iterator<String> actions) {
        StringBuilder text = new StringBuilder();
        while (actions.hasNext()) {
            text.append(actions.next()).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] readAll(FileSystem fs, Path path) throws IOException {
        try (InputStream in = fs.open(path); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            in.transferTo(out);
            return out.toByteArray();
        }
    }
}
