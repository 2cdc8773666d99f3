# Fission's Node.js environment (fission/environments nodejs/, pinned as fission-environments in
# deploy/shared/pins.tsv) as its Dockerfile builds it with a Debian NODE_BASE_IMG (upstream's Debian image
# is node:22.22.3). node:20-bookworm-slim stands for Debian 12's Node.js (imagebuild Bases: Debian bookworm's
# Node.js 18; the environment's package.json asks for Node.js 22 or newer, which Debian 12 does not have, and
# npm only warns). Its dependencies are installed from the environment's own package-lock.json (npm ci;
# upstream's `npm install` resolves package.json afresh). Built by deploy/fission/envs.sh from a context
# that holds the environment's own files.
FROM node:20-bookworm-slim
WORKDIR /usr/src/app
COPY package.json /usr/src/app/package.json
COPY package-lock.json /usr/src/app/package-lock.json
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY server.js /usr/src/app/server.js
EXPOSE 8888
CMD ["node", "server.js"]
