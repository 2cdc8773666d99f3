# OpenWhisk's Node.js action runtime (openwhisk-runtime-nodejs core/nodejs20Action, its files from
# core/nodejsActionBase as the runtime's build.gradle copies them), built by deploy/openwhisk/build-runtimes.sh from
# the pinned source. Differences from upstream's image: Debian bookworm's Node.js 18 (imagebuild's
# node:20-bookworm-slim; upstream runs node:20-bullseye), and no imagemagick, graphicsmagick, zip or unzip (no
# faasbench workload calls them; an action that shells out to them fails here).
FROM node:20-bookworm-slim
WORKDIR /nodejsAction
COPY . /nodejsAction/
COPY package.json /
RUN cd / && npm install --no-package-lock --omit=dev --no-audit --no-fund && npm cache clean --force
EXPOSE 8080
CMD ["node", "--expose-gc", "app.js"]
