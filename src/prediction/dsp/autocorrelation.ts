// Circular autocorrelation (Crane's dsp.AutoCorrelation): z-normalize with the mean and population standard
// deviation, then acf = IDFT(|DFT(z)|^2) / N. A constant series gives NaN everywhere (std 0), as in Crane.
import { dft, idft } from './dft.ts';

export function autoCorrelation(samples: ArrayLike<number>): Float64Array {
  const n = samples.length;
  if (n === 0) return new Float64Array(0);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += samples[i] as number;
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) variance += ((samples[i] as number) - mean) ** 2;
  const std = Math.sqrt(variance / n);
  const z = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) z[2 * i] = ((samples[i] as number) - mean) / std;
  const Z = dft(z);
  const power = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) power[2 * k] = (Z[2 * k] as number) ** 2 + (Z[2 * k + 1] as number) ** 2;
  const back = idft(power);
  const acf = new Float64Array(n);
  for (let i = 0; i < n; i++) acf[i] = (back[2 * i] as number) / n;
  return acf;
}
