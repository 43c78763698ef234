package ark.broker.question;

import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QuestionRequestsTest {

  private static JsonNode json(String text) throws Exception {
    return QuestionJson.MAPPER.readTree(text.replace('\'', '"'));
  }

  @Test
  void readsEveryFieldOfACreate() throws Exception {
    NewQuestion request = QuestionRequests.create(json("""
        {'sender':'ark://agents/reviewer','recipient':'ark://users/john','channels':['slack'],
         'content':'Merge?','context':'CI is green','options':['yes','no'],'priority':'high',
         'blocking':false,'expiresAt':'2030-01-31T12:00:00Z','query':{'namespace':'default','name':'q1'},
         'toolCallId':'call_1','idempotencyKey':'k-1'}"""));

    assertThat(request.sender()).isEqualTo("ark://agents/reviewer");
    assertThat(request.recipient()).isEqualTo("ark://users/john");
    assertThat(request.channels()).containsExactly("slack");
    assertThat(request.options()).containsExactly("yes", "no");
    assertThat(request.priority()).isEqualTo(Priority.HIGH);
    assertThat(request.blocking()).isFalse();
    assertThat(request.expiresAt()).isEqualTo(Instant.parse("2030-01-31T12:00:00Z"));
    assertThat(request.query()).isEqualTo(new QueryRef("default", "q1"));
    assertThat(request.toolCallId()).isEqualTo("call_1");
    assertThat(request.idempotencyKey()).isEqualTo("k-1");
  }

  @Test
  void defaultsPriorityToMediumAndBlockingToTrue() throws Exception {
    NewQuestion request = QuestionRequests.create(json("{'recipient':'ark://users/john','content':'Merge?'}"));

    assertThat(request.priority()).isEqualTo(Priority.MEDIUM);
    assertThat(request.blocking()).isTrue();
    assertThat(request.channels()).isEmpty();
    assertThat(request.options()).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "{'content':'x'}                                                  | recipient must look like",
      "{'recipient':'ark://users/john'}                                 | content is required",
      "{'recipient':'ark://users/john','content':'  '}                  | content must not be empty",
      "{'recipient':'john','content':'x'}                               | recipient must look like ark://",
      "{'recipient':'ark://users/john','content':42}                    | content must be a string",
      "{'recipient':'ark://users/john','content':'x','channels':'slack'} | channels must be an array of strings",
      "{'recipient':'ark://users/john','content':'x','options':[1]}      | options must be an array of strings",
      "{'recipient':'ark://users/john','content':'x','options':[]}       | options must list between 1 and",
      "{'recipient':'ark://users/john','content':'x','options':['a','a']} | options must not repeat",
      "{'recipient':'ark://users/john','content':'x','priority':'urgent'} | priority must be one of high, medium, low",
      "{'recipient':'ark://users/john','content':'x','blocking':'yes'}   | blocking must be true or false",
      "{'recipient':'ark://users/john','content':'x','ttlSeconds':1.5}   | ttlSeconds must be a whole number",
      "{'recipient':'ark://users/john','content':'x','ttlSeconds':0}     | ttlSeconds must be between 1 and",
      "{'recipient':'ark://users/john','content':'x','expiresAt':'soon'} | expiresAt must be an ISO-8601 instant",
      "{'recipient':'ark://users/john','content':'x','ttlSeconds':5,'expiresAt':'2030-01-01T00:00:00Z'} | either expiresAt or ttlSeconds",
      "{'recipient':'ark://users/john','content':'x','query':{'namespace':'Default','name':'q'}} | query.namespace must be",
      "{'recipient':'ark://users/john','content':'x','query':{'namespace':'default'}} | query.name must be",
      "{'recipient':'ark://users/john','content':'x','query':{'ns':'default','name':'q'}} | unknown field 'ns' in query",
      "{'recipient':'ark://users/john','content':'x','toolCallId':'has space'} | toolCallId must be 1 to 256 visible",
      "{'recipient':'ark://users/john','content':'x','recipeint':'y'}    | unknown field 'recipeint'",
      "[1,2]                                                            | request body must be a JSON object",
  })
  void namesWhatIsWrongWithABadCreate(String body, String message) throws Exception {
    assertThatThrownBy(() -> QuestionRequests.create(json(body)))
        .isInstanceOf(InvalidQuestionException.class)
        .hasMessageContaining(message);
  }

  @Test
  void readsAnAnswer() throws Exception {
    QuestionRequests.Answer answer = QuestionRequests.answer(json("{'response':'yes','answeredBy':'ark://users/john'}"));

    assertThat(answer).isEqualTo(new QuestionRequests.Answer(new Reply.Text("yes"), "ark://users/john"));
  }

  @Test
  void refusesAnAnswerWithoutResponse() throws Exception {
    assertThatThrownBy(() -> QuestionRequests.answer(json("{'reply':'yes'}")))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining("unknown field 'reply'");
    assertThatThrownBy(() -> QuestionRequests.answer(json("{}")))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining("response is required");
  }

  @Test
  void refusesTooManyChannelsAndTooLongContent() {
    assertThatThrownBy(() -> new NewQuestion(null, "ark://users/a", List.of("a", "b", "c", "d", "e", "f", "g", "h",
        "i", "j", "k", "l", "m", "n", "o", "p", "q"), "x", null, null, null, true, null, null, false, null, null, null, null, null, null, null))
        .hasMessageContaining("at most 16 channels");
    assertThatThrownBy(() -> new NewQuestion(null, "ark://users/a", null, "x".repeat(16_385), null, null, null, true, null, null, false, null,
        null, null, null, null, null, null))
        .hasMessageContaining("content is longer than 16384 characters");
  }
}
