// Resource quantities written the way the API server writes them back, as
// apimachinery's Quantity.String() canonicalises: DecimalSI drops trailing
// zeros in groups of three ("2", "1500m", "1k"), BinarySI uses the largest
// power of 1024 that divides the value exactly ("16Gi", "16331712Ki"), and a
// binary value under 1024 is written in decimal. Values here are integers:
// CPU in millicores, everything else in whole units (bytes, pods).
import { parseBytes, parseCpuMillis } from '../../shared/quantity.js';

const DECIMAL_SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** Resources the kubelet reports in BinarySI, as cadvisor.CapacityFromMachineInfo builds them. */
export function isBinaryResource(resourceName: string): boolean {
  return resourceName === 'memory' || resourceName === 'ephemeral-storage' || resourceName.startsWith('hugepages-');
}

/** Millicores as a canonical DecimalSI quantity: 2000 → "2", 1500 → "1500m", 0 → "0". */
export function formatDecimalMillis(millis: number): string {
  const value = Math.max(0, Math.trunc(millis));
  if (value % 1000 !== 0) return `${value}m`;
  return formatDecimal(value / 1000);
}

/** A whole number as a canonical DecimalSI quantity: 110 → "110", 1000 → "1k". */
export function formatDecimal(units: number): string {
  let value = Math.max(0, Math.trunc(units));
  let exponentIndex = 0;
  while (value !== 0 && value % 1000 === 0 && exponentIndex < DECIMAL_SUFFIXES.length - 1) {
    value /= 1000;
    exponentIndex += 1;
  }
  return `${value}${DECIMAL_SUFFIXES[exponentIndex]}`;
}

/** A whole number of bytes as a canonical BinarySI quantity: 2097152 → "2Mi", 1000 → "1k". */
export function formatBinary(bytes: number): string {
  let value = Math.max(0, Math.trunc(bytes));
  if (value < 1024) return formatDecimal(value);
  let exponentIndex = 0;
  while (value % 1024 === 0 && exponentIndex < BINARY_SUFFIXES.length - 1) {
    value /= 1024;
    exponentIndex += 1;
  }
  return `${value}${BINARY_SUFFIXES[exponentIndex]}`;
}

/** The integer amount of a resource: millicores for cpu, whole units otherwise. */
export function resourceAmount(resourceName: string, quantity: string | number): number {
  return resourceName === 'cpu' ? parseCpuMillis(quantity) : parseBytes(quantity);
}

/** An integer amount written back in the resource's canonical form. */
export function formatResource(resourceName: string, amount: number): string {
  if (resourceName === 'cpu') return formatDecimalMillis(amount);
  return isBinaryResource(resourceName) ? formatBinary(amount) : formatDecimal(amount);
}
