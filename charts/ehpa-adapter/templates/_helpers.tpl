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

{{/*
The three metrics APIServices and whether this release claims each: {items: [{name, group, version,
priority, key, setting, claim, owner}]}. "auto" claims one that is absent or already points at this
release's Service, and leaves one another Service holds (owner) to it. lookup answers nothing under
`helm template`, so there every "auto" claims.
*/}}
{{- define "ehpa-adapter.apiServiceClaims" -}}
{{- $fullname := include "ehpa-adapter.fullname" . -}}
{{- $out := list -}}
{{- $defs := list
  (dict "key" "customV1beta1" "group" "custom.metrics.k8s.io" "version" "v1beta1" "priority" 100)
  (dict "key" "customV1beta2" "group" "custom.metrics.k8s.io" "version" "v1beta2" "priority" 200)
  (dict "key" "externalV1beta1" "group" "external.metrics.k8s.io" "version" "v1beta1" "priority" 100)
-}}
{{- range $defs -}}
{{- $setting := toString (get $.Values.apiServices .key) -}}
{{- $name := printf "%s.%s" .version .group -}}
{{- $claim := eq $setting "true" -}}
{{- $owner := "" -}}
{{- $existing := lookup "apiregistration.k8s.io/v1" "APIService" "" $name -}}
{{- if $existing -}}
{{- $svc := dig "spec" "service" nil $existing -}}
{{- if not $svc -}}
{{- $owner = "kube-apiserver itself" -}}
{{- else if not (and (eq (toString (dig "name" "" $svc)) $fullname) (eq (toString (dig "namespace" "" $svc)) $.Release.Namespace)) -}}
{{- $owner = printf "%s/%s" (toString (dig "namespace" "" $svc)) (toString (dig "name" "" $svc)) -}}
{{- end -}}
{{- end -}}
{{- if eq $setting "auto" -}}
{{- $claim = not $owner -}}
{{- end -}}
{{- $out = append $out (merge (dict "name" $name "setting" $setting "claim" $claim "owner" $owner) .) -}}
{{- end -}}
{{- toYaml (dict "items" $out) -}}
{{- end -}}
