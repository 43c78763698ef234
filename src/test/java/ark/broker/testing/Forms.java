package ark.broker.testing;

/** Typed questions the tests of every surface ask. */
public final class Forms {
  /** A deployment form: a titled single choice, a bounded integer, a boolean and an email, two of them required. */
  public static final String DEPLOY = """
      {"type":"object","properties":{
        "env":{"type":"string","title":"Environment","oneOf":[{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},
        "replicas":{"type":"integer","minimum":1,"maximum":10},
        "notify":{"type":"boolean","default":true},
        "contact":{"type":"string","format":"email"}},
       "required":["env","replicas"]}""";

  private Forms() {
  }
}
