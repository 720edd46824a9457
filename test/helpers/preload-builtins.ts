// Loaded first in every mocha process (.mocharc.json "require"): Node's TLS modules, before any test file.
// node:tls and node:_tls_wrap require each other; in the parallel runner, where a worker process runs many
// files, a test (unidentified) left `_tls_wrap` holding an incomplete `tls` module, so every later
// https.createServer in that worker failed with "tls.createSecureContext is not a function". Loading them
// here, at a shallow stack with nothing else running, settles the cycle once for the whole process.
import 'node:tls';
import 'node:https';
