{{/* Name of the namespaced objects and of the cluster-scoped ones' prefix. */}}
{{- define "ehpa-adapter.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains "ehpa-adapter" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-ehpa-adapter" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ehpa-adapter.serviceAccountName" -}}
{{- .Values.serviceAccount.name | default (include "ehpa-adapter.fullname" .) -}}
{{- end -}}

{{/*
The pod selector. Only the name: the kustomize install (manifests/) has always selected on it, and a
Deployment's selector cannot change, so an install made with `kubectl apply -k manifests/` upgrades in
place. APIServices are cluster-global, so one release per cluster is the only set-up that works anyway.
*/}}
{{- define "ehpa-adapter.selectorLabels" -}}
app.kubernetes.io/name: ehpa-adapter
{{- end -}}

{{- define "ehpa-adapter.labels" -}}
{{ include "ehpa-adapter.selectorLabels" . }}
{{- if .Values.helmLabels }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "ehpa-adapter.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* The serving certificate's source: certManager, secret, or generated (self-signed at start). */}}
{{- define "ehpa-adapter.tlsMode" -}}
{{- if .Values.certManager.enabled -}}certManager
{{- else if .Values.tls.existingSecret -}}secret
{{- else -}}generated
{{- end -}}
{{- end -}}

{{- define "ehpa-adapter.servingSecretName" -}}
{{- if .Values.certManager.enabled -}}
{{- printf "%s-serving-cert" (include "ehpa-adapter.fullname" .) -}}
{{- else -}}
{{- .Values.tls.existingSecret -}}
{{- end -}}
{{- end -}}

{{/* Requests/limits and the V8 heap cap of the sizing presets (docs/sizing.md). */}}
{{- define "ehpa-adapter.preset" -}}
{{- $presets := dict
  "small" (dict "resources" (dict "requests" (dict "cpu" "250m" "memory" "512Mi") "limits" (dict "memory" "1Gi")) "heap" 768)
  "medium" (dict "resources" (dict "requests" (dict "cpu" "1" "memory" "768Mi") "limits" (dict "memory" "1Gi")) "heap" 768)
  "large" (dict "resources" (dict "requests" (dict "cpu" "2" "memory" "1Gi") "limits" (dict "memory" "1536Mi")) "heap" 1024)
  "custom" (dict "resources" .Values.resources "heap" (int .Values.maxOldSpaceSizeMi))
-}}
{{- $p := get $presets .Values.sizing -}}
{{- if not $p -}}{{- fail (printf "sizing must be small, medium, large or custom, not %q" .Values.sizing) -}}{{- end -}}
{{- toYaml $p -}}
{{- end -}}

{{/* The controllers flag: controllers plus vpa-recommender when enabled. */}}
{{- define "ehpa-adapter.controllers" -}}
{{- $c := list -}}
{{- range .Values.controllers }}{{- $c = append $c . -}}{{- end -}}
{{- if .Values.vpaRecommender.enabled }}{{- $c = append $c "vpa-recommender" -}}{{- end -}}
{{- join "," $c -}}
{{- end -}}

{{- define "ehpa-adapter.anyApiService" -}}
{{- if or .Values.apiServices.customV1beta1 .Values.apiServices.customV1beta2 .Values.apiServices.externalV1beta1 -}}true{{- end -}}
{{- end -}}
