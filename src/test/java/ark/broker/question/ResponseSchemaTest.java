package ark.broker.question;

import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResponseSchemaTest {
  /** Every kind of field MCP elicitation's requestedSchema allows. */
  static final String FORM = """
      {'$schema':'https://json-schema.org/draft/2020-12/schema','type':'object','properties':{
        'name':{'type':'string','title':'Name','description':'Who ships','minLength':2,'maxLength':10,'default':'ann'},
        'email':{'type':'string','format':'email'},
        'site':{'type':'string','format':'uri'},
        'day':{'type':'string','format':'date'},
        'at':{'type':'string','format':'date-time'},
        'color':{'type':'string','enum':['red','green'],'enumNames':['Red','Green']},
        'size':{'type':'string','oneOf':[{'const':'s','title':'Small'},{'const':'l','title':'Large'}]},
        'count':{'type':'integer','minimum':1,'maximum':5},
        'ratio':{'type':'number','minimum':0,'maximum':1.5},
        'ok':{'type':'boolean','default':true},
        'tags':{'type':'array','minItems':1,'maxItems':2,'items':{'type':'string','enum':['a','b','c']}},
        'envs':{'type':'array','items':{'anyOf':[{'const':'dev','title':'Dev'},{'const':'prod','title':'Prod'}]}}
      },'required':['name','count']}""";

  static JsonNode json(String text) throws Exception {
    return QuestionJson.MAPPER.readTree(text.replace('\'', '"'));
  }

  static ResponseSchema form() throws Exception {
    return ResponseSchema.parse(json(FORM));
  }

  @Test
  void acceptsEveryPartOfTheElicitationSubsetAndDescribesItsFields() throws Exception {
    ResponseSchema schema = form();

    assertThat(schema.fields().keySet()).containsExactly("name", "email", "site", "day", "at", "color", "size", "count",
        "ratio", "ok", "tags", "envs");
    assertThat(schema.required()).containsExactly("name", "count");
    assertThat(schema.fields().get("color").choices()).containsEntry("red", "Red").containsEntry("green", "Green");
    assertThat(schema.fields().get("size").choices()).containsEntry("l", "Large");
    assertThat(schema.fields().get("envs").choices()).containsEntry("prod", "Prod");
    assertThat(schema.fields().get("tags").isMultipleChoice()).isTrue();
    assertThat(schema.fields().get("name").label()).isEqualTo("Name");
    assertThat(schema.fields().get("email").label()).isEqualTo("email");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      {'type':'array','properties':{'a':{'type':'string'}}}                 | responseSchema.type must be "object"
      {'type':'object'}                                                      | responseSchema.properties must be an object
      {'type':'object','properties':{}}                                      | responseSchema.properties must be an object
      {'type':'object','properties':{'a':{'type':'string'}},'additionalProperties':false} | responseSchema.additionalProperties is not part of
      {'type':'object','properties':{'a':{'type':'object'}}}                | responseSchema.properties.a.type must be string, number
      {'type':'object','properties':{'a':{'type':'string','pattern':'x'}}}  | responseSchema.properties.a.pattern is not part of
      {'type':'object','properties':{'a':{'type':'string','format':'ipv4'}}} | responseSchema.properties.a.format must be one of
      {'type':'object','properties':{'a':{'type':'string','minLength':3,'maxLength':2}}} | responseSchema.properties.a.minLength must not be above
      {'type':'object','properties':{'a':{'type':'string','minLength':-1}}} | responseSchema.properties.a.minLength must be a whole number
      {'type':'object','properties':{'a':{'type':'string','enum':[]}}}      | responseSchema.properties.a.enum must list 1 to
      {'type':'object','properties':{'a':{'type':'string','enum':['x'],'enumNames':['X','Y']}}} | enumNames must name each value
      {'type':'object','properties':{'a':{'type':'string','enum':['x'],'format':'email'}}} | is a choice: minLength, maxLength and format do not apply
      {'type':'object','properties':{'a':{'type':'string','oneOf':[{'const':'x'}]}}} | responseSchema.properties.a.oneOf must list {"const": string, "title": string}
      {'type':'object','properties':{'a':{'type':'number','minimum':'1'}}}  | responseSchema.properties.a.minimum must be a number
      {'type':'object','properties':{'a':{'type':'number','exclusiveMinimum':1}}} | responseSchema.properties.a.exclusiveMinimum is not part of
      {'type':'object','properties':{'a':{'type':'boolean','default':'yes'}}} | responseSchema.properties.a.default must be true or false
      {'type':'object','properties':{'a':{'type':'array','items':{'type':'number'}}}} | responseSchema.properties.a.items.type must be "string"
      {'type':'object','properties':{'a':{'type':'string'}},'required':['b']} | responseSchema.required must name each field
      {'type':'object','properties':{'a':{'type':'string','title':7}}}      | responseSchema.properties.a.title must be a string
      """)
  void refusesAnythingOutsideTheSubsetNamingWhere(String schema, String message) throws Exception {
    assertThatThrownBy(() -> ResponseSchema.parse(json(schema)))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining(message);
  }

  @Test
  void keepsAValidAnswerLeavingOutNulls() throws Exception {
    JsonNode kept = form().validate(json("""
        {'name':'ann','email':'ann@example.com','site':'https://example.com/x','day':'2030-01-31',
         'at':'2030-01-31T12:00:00Z','color':'red','size':'l','count':3.0,'ratio':1.5,'ok':false,'tags':['a','c'],
         'envs':['prod']}"""));

    assertThat(kept.get("count").asInt()).isEqualTo(3);
    assertThat(form().validate(json("{'name':'ann','count':1,'email':null}")).has("email")).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      []                                          | answer must be a JSON object
      {'count':1}                                 | answer.name is required
      {'name':'ann'}                              | answer.count is required
      {'name':'ann','count':1,'colour':'red'}     | answer.colour is not a field of this question's form
      {'name':'a','count':1}                      | answer.name must be at least 2 characters long
      {'name':'abcdefghijk','count':1}            | answer.name must be at most 10 characters long
      {'name':7,'count':1}                        | answer.name must be a string
      {'name':'ann','count':1.5}                  | answer.count must be a whole number
      {'name':'ann','count':6}                    | answer.count must be at most 5
      {'name':'ann','count':0}                    | answer.count must be at least 1
      {'name':'ann','count':'2'}                  | answer.count must be a number
      {'name':'ann','count':1,'ok':'yes'}         | answer.ok must be true or false
      {'name':'ann','count':1,'email':'ann'}      | answer.email must be an email address
      {'name':'ann','count':1,'site':'example'}   | answer.site must be an absolute URI
      {'name':'ann','count':1,'day':'31.1.2030'}  | answer.day must be a date
      {'name':'ann','count':1,'at':'2030-01-31T12:00:00'} | answer.at must be a date and time with an offset
      {'name':'ann','count':1,'color':'blue'}     | answer.color must be one of [red, green]
      {'name':'ann','count':1,'size':'Large'}     | answer.size must be one of [s, l]
      {'name':'ann','count':1,'tags':[]}          | answer.tags must list between 1 and 2 choices
      {'name':'ann','count':1,'tags':['a','a']}   | answer.tags must list distinct choices
      {'name':'ann','count':1,'envs':'dev'}       | answer.envs must be an array of choices
      """)
  void refusesAnAnswerNamingTheFailingField(String answer, String message) throws Exception {
    assertThatThrownBy(() -> form().validate(json(answer)))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining(message);
  }

  @Test
  void survivesTheLogUnchanged() throws Exception {
    ResponseSchema schema = form();
    String written = QuestionJson.MAPPER.writeValueAsString(schema);

    assertThat(QuestionJson.MAPPER.readValue(written, ResponseSchema.class)).isEqualTo(schema);
  }
}
