// zod v4 probes for `new Function` support when a schema is first built, which the server's Content-Security-Policy
// (script-src 'self', no 'unsafe-eval') reports as a violation. Validation works the same without that speed-up, so
// it is turned off before any schema exists. main.tsx imports this module first.
import { z } from "zod";

z.config({ jitless: true });
