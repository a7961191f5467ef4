/** The conformance suite (conformance.ts) against the protocol-faithful zot, terva and Opal fakes (testkit/). */
import { conformanceSuite } from "./conformance";
import { opalTarget, zotTarget } from "./conformance-targets";

process.env.SWITCHBOARD_LOG ??= "silent";

conformanceSuite("zot adapter (fake zot rpc)", zotTarget("zot"));
conformanceSuite("zot adapter (fake terva rpc, zot's successor)", zotTarget("terva"));
conformanceSuite("Opal adapter (fake opal-server)", opalTarget);
