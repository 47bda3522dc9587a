# A stand-in for the official redis image of docker-compose.yml, made from the same locally made
# Debian base as Sculptor's image (run.sh): Debian's redis-server and redis-cli.
ARG BASE
FROM ${BASE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends redis-server \
  && rm -rf /var/lib/apt/lists/* /usr/share/doc/*
USER redis
WORKDIR /var/lib/redis
CMD ["redis-server"]
