package ark.broker.access;

import ark.broker.auth.Actor;
import ark.broker.auth.AuthFailure;
import ark.broker.auth.AuthMethod;
import ark.broker.auth.Principal;
import ark.broker.question.Audience;
import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionNotFoundException;

import java.util.HashSet;
import java.util.Set;

/**
 * The one authorizer: what an {@link Actor} may see and do to questions. The store asks it before every read and
 * write, whichever surface the request came through. Rights follow the actor's {@link Actor#effective() effective}
 * principal (a service acting for an agent has that agent's rights):
 *
 * <ul>
 *   <li>admin (and the broker itself, and everyone while the broker runs open): everything;</li>
 *   <li>everyone else sees the questions it sent and those addressed to it or to one of its teams, creates
 *       questions only as itself, answers only those addressed to it or its teams, and cancels those it sent or
 *       (declining) those addressed to it.</li>
 * </ul>
 *
 * A question the actor may not see does not exist for it (404), so ids reveal nothing; one it sees but may not
 * change this way is 403.
 */
public final class QuestionAccess {
  private QuestionAccess() {
  }

  /** The questions the actor may see, or null for all of them. */
  public static Audience audience(Actor actor) {
    Principal principal = actor.effective();
    if (principal.isAdmin()) {
      return null;
    }
    Set<String> names = new HashSet<>(principal.teams());
    names.add(principal.name());
    return new Audience(names);
  }

  /** The filter, narrowed to what the actor may see. */
  public static QuestionFilter visible(Actor actor, QuestionFilter filter) {
    Audience audience = audience(actor);
    return audience == null ? filter : filter.seenBy(audience);
  }

  public static boolean maySee(Actor actor, Question question) {
    Audience audience = audience(actor);
    return audience == null || audience.sees(question);
  }

  /** The question, if the actor may see it; else as if there were none. */
  public static Question requireVisible(Actor actor, Question question) {
    if (!maySee(actor, question)) {
      throw new QuestionNotFoundException(question.id());
    }
    return question;
  }

  /**
   * The request as the actor may make it: sent by the actor itself (a request naming no sender gets the actor's
   * name). An admin may name any sender, or none.
   *
   * @throws AuthFailure 403 for a sender other than the actor
   */
  public static NewQuestion create(Actor actor, NewQuestion request) {
    Principal principal = actor.effective();
    if (principal.isAdmin()) {
      return request;
    }
    if (request.sender() == null) {
      return request.sentBy(principal.name());
    }
    if (!request.sender().equals(principal.name())) {
      throw AuthFailure.forbidden("sender must be the caller, " + principal.name() + ", not " + request.sender());
    }
    return request;
  }

  /**
   * Who the answer is recorded as: the actor itself, which must be the recipient or in the recipient team. An
   * admin may record it as someone else's answer (its own entry in the history says who really gave it).
   *
   * @param answeredBy who the request says answers, or null
   * @throws QuestionNotFoundException for a question the actor may not see
   * @throws AuthFailure 403 for a question it sees but may not answer, or an answeredBy other than itself
   */
  public static String answeredBy(Actor actor, Question question, String answeredBy) {
    Principal principal = actor.effective();
    if (principal.isAdmin()) {
      return answeredBy != null || principal.method() == AuthMethod.ANONYMOUS ? answeredBy : principal.name();
    }
    Audience audience = audience(actor);
    requireVisible(actor, question);
    if (!audience.isRecipientOf(question)) {
      throw AuthFailure.forbidden("only " + String.join(" or ", question.recipients()) + " may answer question " + question.id());
    }
    if (answeredBy != null && !answeredBy.equals(principal.name())) {
      throw AuthFailure.forbidden("answeredBy must be the caller, " + principal.name() + ", not " + answeredBy);
    }
    return principal.name();
  }

  /**
   * Whether the actor may cancel the question: its sender may withdraw it, its recipient may decline it.
   *
   * @throws QuestionNotFoundException for a question the actor may not see
   */
  public static void requireMayCancel(Actor actor, Question question) {
    requireVisible(actor, question);
  }
}
