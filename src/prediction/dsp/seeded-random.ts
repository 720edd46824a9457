// Deterministic randomness for period detection: Crane seeds math/rand from the clock, so its permutation
// threshold (and occasionally its period) changes from run to run. We take the seed as an argument.

/** Small fast PRNG (sfc32, Chris Doty-Humphrey's "small fast chaotic" generator), seeded via splitmix32. */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform integer in [0, n) for n <= 2^32 (multiply-shift; the bias is below n/2^32). */
  intn(n: number): number {
    return Math.floor((this.nextUint32() / 4294967296) * n);
  }

  /** In-place Fisher-Yates shuffle, the same walk as Go's rand.Shuffle. */
  shuffle(x: Float64Array): void {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.intn(i + 1);
      const t = x[i] as number;
      x[i] = x[j] as number;
      x[j] = t;
    }
  }
}
