// A string flag holding a Kubernetes quantity ("1Gi", "500m"): parsed once here so every command reports a
// bad one the same way (UsageError naming the flag).
import { Quantity } from '../quantity/index.ts';
import { UsageError } from './flags.ts';

export function quantityFlag<F>(f: F, name: keyof F & string): Quantity | undefined {
  const v = f[name] as string | undefined;
  if (v === undefined || v === '') return undefined;
  try {
    return Quantity.parse(v);
  } catch {
    throw new UsageError(`invalid value "${v}" for --${name}: not a quantity`);
  }
}
