// Kubernetes resource quantities identical to apimachinery's resource.Quantity.
export { Quantity, QuantityParseError, parseQuantity, tryParseQuantity, quantityMilli, formatMilli, formatBytes, formatDecimal, formatCores } from './quantity.ts';
export type { QuantityFormat } from './quantity.ts';
