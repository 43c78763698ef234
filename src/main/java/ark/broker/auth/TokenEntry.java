package ark.broker.auth;

/** One line of the tokens file: the token's hash and what it grants. Its text form leaves the hash out. */
record TokenEntry(byte[] sha256, Grant grant) {
  @Override
  public boolean equals(Object other) {
    return other instanceof TokenEntry entry && TokenHash.same(sha256, entry.sha256) && grant.equals(entry.grant);
  }

  @Override
  public int hashCode() {
    return grant.hashCode();
  }

  @Override
  public String toString() {
    return "TokenEntry[" + grant.principal().kind().wireName() + " " + grant.principal().name() + "]";
  }
}
