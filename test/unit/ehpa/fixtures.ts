import type { EffectiveHorizontalPodAutoscaler, EhpaSpec } from '../../../src/api/ehpa.ts';

export const UID = 'f9b92249-eab9-4671-afe0-17925e5987b8';

export function ehpa(spec: Partial<EhpaSpec> = {}, meta: Partial<EffectiveHorizontalPodAutoscaler['metadata']> = {}): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: 'php-apache', namespace: 'default', uid: UID, generation: 1, ...meta },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'php-apache' },
      minReplicas: 1,
      maxReplicas: 10,
      scaleStrategy: 'Auto',
      ...spec,
    },
  };
}

export const cpuUtilization50 = {
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
};

export const prediction = {
  predictionWindowSeconds: 3600,
  predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } },
};
