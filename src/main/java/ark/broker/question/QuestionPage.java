package ark.broker.question;

import java.util.List;

/**
 * One page of a list.
 *
 * @param resourceVersion position of the newest change the view had applied; watching from it misses nothing
 * @param continueToken where the next page starts, or null on the last page
 */
public record QuestionPage(String resourceVersion, List<Question> items, String continueToken) {
}
