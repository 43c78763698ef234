package ark.broker.auth;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Static bearer tokens from {@code auth.tokensFile} (in Kubernetes, a mounted Secret). A changed file takes
 * effect without a restart: at most once per check interval, a request looks at the file's modification time,
 * size and identity (a Secret update swaps the file), and re-reads it when they changed. A changed file that
 * cannot be used (broken JSON, a bad entry, gone) leaves the tokens read before in force and is reported by one
 * WARN, without its content; a later change is read again.
 */
final class StaticTokenAuthenticator implements Authenticator {
  private static final Logger LOG = LoggerFactory.getLogger(StaticTokenAuthenticator.class);
  /** A tokens file is a short list; anything much bigger is a mistake (a wrong path), not tokens. */
  static final long MAX_FILE_BYTES = 1024 * 1024;

  private final Path file;
  private final long checkEveryNanos;
  private final AtomicBoolean checking = new AtomicBoolean();
  private volatile Snapshot current;
  private volatile long nextCheckNanos;
  /** The version of the file last found unusable, so it is reported once, not at every check. */
  private FileStamp rejected;

  private record Snapshot(FileStamp stamp, List<TokenEntry> entries) {
  }

  /** What tells one version of the file from the next without reading it. */
  private record FileStamp(long modifiedMillis, long size, Object fileKey) {
    static FileStamp of(Path file) throws IOException {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      return new FileStamp(attributes.lastModifiedTime().toMillis(), attributes.size(), attributes.fileKey());
    }
  }

  private StaticTokenAuthenticator(Path file, Duration checkEvery, Snapshot first) {
    this.file = file;
    this.checkEveryNanos = checkEvery.toNanos();
    this.current = first;
    this.nextCheckNanos = System.nanoTime() + checkEveryNanos;
  }

  /**
   * Reads the file once, at start.
   *
   * @param checkEvery how often requests look whether the file changed
   * @throws IllegalArgumentException when the file cannot be read or used, naming the file and the problem
   */
  static StaticTokenAuthenticator load(Path file, Duration checkEvery) {
    Objects.requireNonNull(file, "file");
    try {
      FileStamp stamp = FileStamp.of(file);
      return new StaticTokenAuthenticator(file, checkEvery, new Snapshot(stamp, read(file)));
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("auth.tokensFile " + file + " does not exist");
    } catch (IOException e) {
      throw new IllegalArgumentException("auth.tokensFile " + file + " cannot be read: " + e.getClass().getSimpleName());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("auth.tokensFile " + file + " is not usable: " + e.getMessage());
    }
  }

  int size() {
    return current.entries().size();
  }

  /** Whether a token of the file (as it is now) is this principal's. */
  boolean names(String principalName) {
    reloadIfChanged();
    for (TokenEntry entry : current.entries()) {
      if (entry.grant().principal().name().equals(principalName)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Optional<Grant> authenticate(String token) {
    reloadIfChanged();
    byte[] hash = TokenHash.of(token);
    TokenEntry match = null;
    // Compare with every entry, not stopping at a match, so the time taken does not tell which entry matched.
    for (TokenEntry entry : current.entries()) {
      if (TokenHash.same(entry.sha256(), hash) && match == null) {
        match = entry;
      }
    }
    return match == null ? Optional.empty() : Optional.of(match.grant());
  }

  private void reloadIfChanged() {
    if (System.nanoTime() - nextCheckNanos < 0 || !checking.compareAndSet(false, true)) {
      return; // not due, or another request is checking: this one uses the tokens in force
    }
    try {
      nextCheckNanos = System.nanoTime() + checkEveryNanos;
      reload();
    } finally {
      checking.set(false);
    }
  }

  private void reload() {
    Snapshot before = current;
    FileStamp stamp;
    try {
      stamp = FileStamp.of(file);
    } catch (IOException e) {
      stamp = null;
    }
    if (Objects.equals(stamp, before.stamp()) || (stamp != null && stamp.equals(rejected))) {
      return;
    }
    if (stamp == null) {
      // Gone (perhaps mid-swap): keep what works rather than lock everyone out; reported once, until it is back.
      LOG.warn("auth.tokensFile {} is gone or unreadable; the {} tokens read before stay in force", file,
          before.entries().size());
      current = new Snapshot(null, before.entries());
      return;
    }
    try {
      List<TokenEntry> entries = read(file);
      current = new Snapshot(stamp, entries);
      rejected = null;
      LOG.info("auth.tokensFile {} changed: {} tokens now", file, entries.size());
    } catch (IOException | IllegalArgumentException e) {
      rejected = stamp;
      String problem = e instanceof IllegalArgumentException ? e.getMessage() : e.getClass().getSimpleName();
      LOG.warn("auth.tokensFile {} changed but is not usable ({}); the {} tokens read before stay in force", file,
          problem, before.entries().size());
    }
  }

  private static List<TokenEntry> read(Path file) throws IOException {
    if (Files.size(file) > MAX_FILE_BYTES) {
      throw new IllegalArgumentException("larger than " + MAX_FILE_BYTES + " bytes");
    }
    return TokensFile.parse(Files.readAllBytes(file));
  }
}
