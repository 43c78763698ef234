package ark.broker.log;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A new directory a command fills before it appears (a backup, an export): written as {@code <target>.partial},
 * renamed to {@code <target>} once complete. Neither may exist beforehand, not even as a link (dangling or not): the
 * command never writes through a link someone planted there, nor into what an earlier run left half written.
 */
public final class PartialDirectory {
  /** The target or its partial copy exists already: the call is refused before anything was written. */
  public static final class Taken extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private Taken(String message) {
      super(message);
    }
  }

  private PartialDirectory() {
  }

  /**
   * Refuses a target, or its partial copy, that exists.
   *
   * @param what what the directory holds, in a word ({@code backup}, {@code export})
   */
  public static void refuseTaken(Path target, String what) {
    Path partial = partialOf(target);
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw taken(target, what, Files.isSymbolicLink(target) ? " (a link)" : "");
    }
    if (Files.exists(partial, LinkOption.NOFOLLOW_LINKS)) {
      throw taken(partial, what, Files.isSymbolicLink(partial) ? " (a link)" : " (left by a " + what
          + " that did not finish)");
    }
  }

  /** Creates {@code <target>.partial}, and any missing parent, after {@link #refuseTaken}; returns it. */
  public static Path create(Path target, String what) throws IOException {
    refuseTaken(target, what);
    Path partial = partialOf(target);
    Files.createDirectories(partial.toAbsolutePath().getParent());
    try {
      // Made here or refused, in one step: nothing that appears meanwhile is written through.
      Files.createDirectory(partial);
    } catch (FileAlreadyExistsException appeared) {
      throw taken(partial, what, "");
    }
    return partial;
  }

  /** Makes the filled partial copy durable and puts it in place as {@code target}. */
  public static void complete(Path partial, Path target) throws IOException {
    LogBackup.sync(partial);
    Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
    LogBackup.sync(target.toAbsolutePath().getParent());
  }

  private static Path partialOf(Path target) {
    return target.resolveSibling(target.getFileName() + ".partial");
  }

  private static Taken taken(Path path, String what, String which) {
    return new Taken(Character.toUpperCase(what.charAt(0)) + what.substring(1) + " target " + path + which
        + " exists already; name a new directory");
  }
}
