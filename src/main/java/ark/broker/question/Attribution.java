package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Who did something to a question, as its history and the audit trail keep it.
 *
 * @param principal the authenticated name ({@code ark://agents/...}, {@code ark://users/...})
 * @param kind      agent, human, service or admin
 * @param method    how it proved who it is: token, oidc, channel, anonymous or internal
 * @param actingFor the agent a service acted for, or null
 * @param address   the client's network address, or null for the broker's own work
 * @param userAgent the client's {@code User-Agent}, or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Attribution(String principal, String kind, String method, String actingFor, String address,
                          String userAgent) {
  public Attribution {
    principal = Canonical.text(principal);
    kind = Canonical.text(kind);
    method = Canonical.text(method);
    actingFor = Canonical.text(actingFor);
    address = Canonical.text(address);
    userAgent = Canonical.text(userAgent);
  }
}
