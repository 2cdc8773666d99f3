'use strict';
// An OpenWhisk Node.js action that fails to initialise (deploy/openwhisk/test-real.sh's fault): loading it throws,
// so the runtime's /init fails and the controller answers the web action 400 "There was an error processing your
// request."; the activation's record holds the reason, which faasbench's adapter reports (platform.Explainer).
throw new Error('faasbench: this action fails at init on purpose');
