{{/* Every object's name: pacer-controller, as manifests/ names them, unless fullnameOverride. */}}
{{- define "pacer.fullname" -}}
{{- default "pacer-controller" .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The pods' labels, which the Deployment, Service, PDB and NetworkPolicy select by. */}}
{{- define "pacer.selectorLabels" -}}
app.kubernetes.io/name: pacer
app.kubernetes.io/component: controller
{{- end -}}

{{/* Every object's labels: the selector's, manifests/' part-of, and Helm's own. */}}
{{- define "pacer.labels" -}}
{{ include "pacer.selectorLabels" . }}
app.kubernetes.io/part-of: pacer
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "pacer.image" -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}

{{/* The webhook's Service and its DNS names. */}}
{{- define "pacer.webhookService" -}}
{{- printf "%s-webhook" (include "pacer.fullname" . | trimSuffix "-controller") -}}
{{- end -}}

{{- define "pacer.webhookSecret" -}}
{{- printf "%s-tls" (include "pacer.webhookService" .) -}}
{{- end -}}

{{/* The dashboard's objects: pacer-dashboard, as manifests/dashboard/ names them (FULLNAME-dashboard with fullnameOverride). */}}
{{- define "pacer.dashboardName" -}}
{{- printf "%s-dashboard" (include "pacer.fullname" . | trimSuffix "-controller") | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "pacer.dashboardSelectorLabels" -}}
app.kubernetes.io/name: pacer
app.kubernetes.io/component: dashboard
{{- end -}}

{{- define "pacer.dashboardLabels" -}}
{{ include "pacer.dashboardSelectorLabels" . }}
app.kubernetes.io/part-of: pacer
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}
