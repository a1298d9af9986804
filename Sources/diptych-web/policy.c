/* SPDX-License-Identifier: MIT */
/* What a kiosk's page may not do, as a kiosk needs it: a new window (window.open, a link with
   target=_blank) opens in the same pane; permission requests (camera, location, notifications)
   are denied; file choosers are cancelled; downloads are refused; a certificate WebKit does not
   trust shows the error page naming the problem, unless an authority given with --tls-ca signed
   it (a page that would keep the user with
   `beforeunload` is left: dialogs.c). Each is said once on stderr. (view.h) */
#include "view.h"

#include "files.h"

#include <string.h>

/* A new window's URL loaded in this view (loaded from here, WebKit's own checks of what a page
   may navigate to do not apply: a file: URL is refused unless plain file: pages are allowed,
   --allow-file-access). */
static void open_here(WebKitWebView *view, const char *uri) {
    char *shown = shown_uri(uri);
    if (g_str_has_prefix(uri, "file:") && web_options.file_access <= 0) say("a new window for %s is refused (a page opens no local file)", shown);
    else {
        say("a new window for %s opens in this pane", shown);
        webkit_web_view_load_uri(view, uri);
    }
    g_free(shown);
}

/* A new window's first navigation goes to this view instead. */
static WebKitWebView *on_create(WebKitWebView *view, WebKitNavigationAction *action, gpointer data) {
    (void)data;
    WebKitURIRequest *request = webkit_navigation_action_get_request(action);
    const char *uri = request ? webkit_uri_request_get_uri(request) : NULL;
    if (uri && *uri && strcmp(uri, "about:blank") != 0) open_here(view, uri);
    return NULL;
}

static gboolean on_decide_policy(WebKitWebView *view, WebKitPolicyDecision *decision, WebKitPolicyDecisionType type, gpointer data) {
    (void)data;
    if (type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION) {
        WebKitNavigationAction *action = webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(decision));
        WebKitURIRequest *request = webkit_navigation_action_get_request(action);
        const char *uri = request ? webkit_uri_request_get_uri(request) : NULL;
        webkit_policy_decision_ignore(decision);
        if (uri && *uri) open_here(view, uri);
        return TRUE;
    }
    if (type == WEBKIT_POLICY_DECISION_TYPE_RESPONSE) {
        WebKitResponsePolicyDecision *r = WEBKIT_RESPONSE_POLICY_DECISION(decision);
        if (!webkit_response_policy_decision_is_mime_type_supported(r)) {
            WebKitURIResponse *response = webkit_response_policy_decision_get_response(r);
            say("a download of %s is refused (a kiosk's pane keeps no files)", response ? webkit_uri_response_get_uri(response) : "?");
            webkit_policy_decision_ignore(decision);
            return TRUE;
        }
    }
    return FALSE;
}

static gboolean on_permission(WebKitWebView *view, WebKitPermissionRequest *request, gpointer data) {
    (void)view; (void)data;
    say("a permission the page asked for (%s) is denied", G_OBJECT_TYPE_NAME(request));
    webkit_permission_request_deny(request);
    return TRUE;
}

static gboolean on_file_chooser(WebKitWebView *view, WebKitFileChooserRequest *request, gpointer data) {
    (void)view; (void)data;
    say("a file chooser the page opened is cancelled (a kiosk's pane has none)");
    webkit_file_chooser_request_cancel(request);
    return TRUE;
}

/* Whether a certificate whose only fault is an unknown authority is signed by one of --tls-ca's;
   then its host is allowed that certificate and the page loads again. */
static int trusted_by_given_ca(WebKitWebView *view, const char *uri, GTlsCertificate *certificate, GTlsCertificateFlags errors) {
    if (errors != G_TLS_CERTIFICATE_UNKNOWN_CA || !web_options.tls_ca) return 0;
    GUri *u = g_uri_parse(uri, G_URI_FLAGS_NONE, NULL);
    const char *host = u ? g_uri_get_host(u) : NULL;
    int trusted = 0;
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    for (GList *ca = web_options.tls_ca; ca && host && !trusted; ca = ca->next)
        trusted = g_tls_certificate_verify(certificate, NULL, G_TLS_CERTIFICATE(ca->data)) == 0;
    G_GNUC_END_IGNORE_DEPRECATIONS
    if (trusted) {
        say("%s's certificate is signed by an authority --tls-ca trusts", host);
        webkit_web_context_allow_tls_certificate_for_host(webkit_web_view_get_context(view), certificate, host);
        webkit_web_view_load_uri(view, uri);
    }
    if (u) g_uri_unref(u);
    return trusted;
}

static gboolean on_tls_errors(WebKitWebView *view, gchar *uri, GTlsCertificate *certificate, GTlsCertificateFlags errors, gpointer data) {
    if (trusted_by_given_ca(view, uri, certificate, errors)) return TRUE;
    const char *why = errors & G_TLS_CERTIFICATE_UNKNOWN_CA ? "its certificate is not signed by an authority this system trusts"
        : errors & G_TLS_CERTIFICATE_BAD_IDENTITY ? "its certificate is for another host"
        : errors & G_TLS_CERTIFICATE_EXPIRED ? "its certificate has expired"
        : errors & G_TLS_CERTIFICATE_NOT_ACTIVATED ? "its certificate is not valid yet"
        : errors & G_TLS_CERTIFICATE_REVOKED ? "its certificate was revoked" : "its certificate is not valid";
    GError *error = g_error_new(WEBKIT_NETWORK_ERROR, WEBKIT_NETWORK_ERROR_FAILED, "the connection is not secure: %s", why);
    /* The error page, as for any load that failed (retried with back-off). */
    web_view_show_load_error(data, uri, error);
    g_error_free(error);
    return TRUE;
}

void policy_attach(struct web_view *view) {
    g_signal_connect(view->webkit, "create", G_CALLBACK(on_create), NULL);
    g_signal_connect(view->webkit, "decide-policy", G_CALLBACK(on_decide_policy), NULL);
    g_signal_connect(view->webkit, "permission-request", G_CALLBACK(on_permission), NULL);
    g_signal_connect(view->webkit, "run-file-chooser", G_CALLBACK(on_file_chooser), NULL);
    g_signal_connect(view->webkit, "load-failed-with-tls-errors", G_CALLBACK(on_tls_errors), view);
}
