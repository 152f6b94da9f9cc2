// zod v4 probes for `new Function` support when a schema is first built, which the server's Content-Security-Policy
// (script-src 'self', no 'unsafe-eval') reports as a violation. Validation works the same without that speed-up, so
// it is turned off before any schema exists. The lazily loaded modules with forms (src/app/auth-pages.ts,
// public-form-pages.ts, signed-in-app.ts) import this module first.
import { z } from "zod";

z.config({ jitless: true });
