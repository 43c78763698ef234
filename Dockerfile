# syntax=docker/dockerfile:1
# The broker image: the jar built with Maven, run by a JRE as an unprivileged user.
#   docker build -t ark-broker .     (docker-compose.yml builds it too)
# The base images are arguments, for a registry mirror or images of your own (ImageIT builds with Debian's):
#   docker build --build-arg BUILD_IMAGE=... --build-arg RUNTIME_IMAGE=... -t ark-broker .
# Any build image with a JDK 17 and Maven on its PATH will do; any runtime image with a Java 17 runtime (17.0.9 or
# later, for -XX:TrimNativeHeapInterval), bash, groupadd and useradd.
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=eclipse-temurin:17-jre

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY pom.xml .
# The compiler's flags for Error Prone (jvm.config).
COPY .mvn .mvn
COPY conf conf
COPY src/main src/main
# Tests run in CI, not in the image build; the Maven cache survives between builds.
RUN --mount=type=cache,target=/root/.m2 mvn -B -q -DskipTests -Dmaven.test.skip=true package

FROM ${RUNTIME_IMAGE}
RUN groupadd --system --gid 10001 ark \
 && useradd --system --uid 10001 --gid ark --home-dir /app --shell /usr/sbin/nologin ark \
 && mkdir -p /app /data \
 && chown ark:ark /data
WORKDIR /app
COPY --from=build /src/target/ark-broker.jar /app/ark-broker.jar
COPY conf/jvm.options /app/jvm.options
# Class-data sharing: a short training run of this image's JVM archives the classes the broker loads, so a new
# container is ready and warm sooner (docs/benchmarks.md#warm-up). A JVM that cannot use it runs without it.
COPY scripts/cds-archive.sh /tmp/cds-archive.sh
# The training broker listens on this port and the next, on loopback; a build that shares its host's network
# (buildah --isolation chroot) may need others.
ARG CDS_TRAINING_PORT=18080
RUN bash /tmp/cds-archive.sh /app/ark-broker.jar /app/ark-broker.jsa && chmod a+r /app/ark-broker.jsa && rm /tmp/cds-archive.sh
USER 10001:10001
# Listen on the container's address; keep the embedded log (when Kafka is not configured) on a volume.
ENV HTTP_HOST=0.0.0.0 \
    MCP_HOST=0.0.0.0 \
    STORE_DATA_DIR=/data
VOLUME /data
EXPOSE 8080 8081
# The JVM options the broker ships with (conf/jvm.options: exit on running out of memory, what the JIT compilers
# compile), a heap sized from the container's memory limit, and every second the memory the compilers freed given
# back to the system (docs/configuration.md#jvm-options).
ENTRYPOINT ["java", "@/app/jvm.options", "-XX:MaxRAMPercentage=75", "-XX:TrimNativeHeapInterval=1000", "-XX:SharedArchiveFile=/app/ark-broker.jsa", "-jar", "/app/ark-broker.jar"]
