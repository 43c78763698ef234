package ark.broker.channel;

import ark.broker.question.EventType;
import ark.broker.question.Question;

import java.util.List;
import java.util.function.UnaryOperator;

/** The words of a reminder or an escalation, the same in every channel; each channel names people its own way. */
public final class FollowUpNotice {
  private FollowUpNotice() {
  }

  /**
   * @param person how the channel names a person (a Slack mention, a GitHub login); a team is named with its members
   */
  public static String text(Question question, EventType step, Directory directory, UnaryOperator<String> person) {
    if (step == EventType.ESCALATED) {
      List<String> added = question.followUps().escalation().escalateTo();
      return "Escalated: nobody has answered question " + question.id() + " yet, so " + names(added, directory, person)
          + (added.size() == 1 ? " is" : " are") + " asked too.";
    }
    return "Reminder: question " + question.id() + " still waits for an answer from "
        + names(question.recipients(), directory, person) + ".";
  }

  private static String names(List<String> recipients, Directory directory, UnaryOperator<String> person) {
    return String.join(", ", recipients.stream().map(recipient -> {
      List<String> members = directory.peopleOf(recipient);
      return recipient.startsWith("ark://teams/") && !members.isEmpty()
          ? recipient + " (" + String.join(", ", members.stream().map(person).toList()) + ")" : person.apply(recipient);
    }).toList());
  }
}
