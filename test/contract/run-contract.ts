// Registers the CRI contract table (cri-contract-cases.ts) as node:test tests
// against one runtime: each case in a fresh ContractContext whose sandboxes,
// directories and removed images are put right after it, pass or fail.
import { describe, it } from 'node:test';
import { CRI_CONTRACT_CASES, SKIPPED_SPECS } from './cri-contract-cases.js';
import { ContractContext, type ContractTarget } from './contract-context.js';

export function registerContractCases(suiteName: string, target: () => ContractTarget): void {
  describe(suiteName, () => {
    for (const contractCase of CRI_CONTRACT_CASES) {
      const deviation = contractCase.containerd16;
      it(contractCase.name, async (t) => {
        const ctx = new ContractContext(target());
        try {
          if (ctx.target.kind === 'containerd-1.6' && deviation) {
            t.diagnostic(`containerd 1.6 differs: ${deviation.reason}`);
            await deviation.run(ctx);
          } else {
            await contractCase.run(ctx);
          }
        } finally {
          await ctx.cleanup();
        }
      });
    }
    for (const skipped of SKIPPED_SPECS) it(`critest: ${skipped.name}`, { skip: skipped.reason }, () => undefined);
  });
}
