package ark.broker.bus;

import ark.broker.question.Question;
import ark.broker.question.QuestionPage;
import io.vertx.core.eventbus.EventBus;

import java.util.List;

/** Registers the codecs of every message type once per Vert.x instance. */
public final class BusCodecs {
  private static final List<Class<?>> TYPES = List.of(
      Messages.CreateQuestion.class, Messages.Created.class, Messages.AnswerQuestion.class,
      Messages.CancelQuestion.class, Messages.GetQuestion.class, Messages.ListQuestions.class,
      Messages.ChangesSince.class, Messages.Changes.class, Messages.QuestionChange.class,
      Messages.StoreStatus.class, Messages.RecordDelivery.class, Messages.WorkerStatus.class,
      Messages.SessionRecord.class, Messages.StartSession.class, Messages.GetSession.class, Messages.DeleteSession.class,
      Messages.InboundRequest.class, Messages.InboundResponse.class, Messages.Draining.class, Question.class,
      QuestionPage.class);

  private BusCodecs() {
  }

  public static void register(EventBus bus) {
    for (Class<?> type : TYPES) {
      registerOne(bus, type);
    }
  }

  private static <T> void registerOne(EventBus bus, Class<T> type) {
    bus.registerDefaultCodec(type, new LocalCodec<>(type));
  }
}
