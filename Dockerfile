# Not built in this project's CI (no Docker engine on its machines): kept plain on purpose.
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src src
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production LOC_DATA_DIR=/data LOC_HOST=0.0.0.0 LOC_PORT=8080
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/oclif.manifest.json ./
COPY package.json ./
COPY bin bin
COPY config config
COPY data/monaco.osm.pbf data/monaco.osm.pbf
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["node", "bin/run.js"]
CMD ["serve"]
