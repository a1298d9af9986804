/* SPDX-License-Identifier: MIT */
/* A page's menus and dialogs, shown by the compositor (protocol 7's presentMenu and
   presentAlert) so that they look as every app's do: a tapped <select> (WebKit's option menu)
   becomes a popover anchored at it (left unfocused once answered, as iPad leaves it); alert(),
   confirm() and prompt() (script dialogs) and an HTTP sign-in become alerts. One at a time:
   what comes while one shows is answered with its default. After three dialogs (sign-ins counted) within 10 s a page's further ones return their
   default without showing (a sign-in is cancelled), until it navigates; a navigation within the
   same origin keeps the count, so a page that reloads itself gets no more than three in 10 s
   (a page that opens dialogs in a loop cannot hold the pane). (dialogs.h) */
#include "dialogs.h"

#include "files.h"

#include <math.h>
#include <string.h>

enum { NONE, MENU, DIALOG, SIGN_IN };
#define SIGN_IN_RETRIES 3

/* Ends what shows (its default answer unless one was given) and forgets it. */
static void finish(struct web_dialogs *d) {
    switch (d->kind) {
    case MENU:
        if (d->menu_close_handler) g_signal_handler_disconnect(d->menu, d->menu_close_handler);
        webkit_option_menu_close(d->menu);
        g_object_unref(d->menu);
        break;
    case DIALOG:
        webkit_script_dialog_close(d->dialog);
        webkit_script_dialog_unref(d->dialog);
        break;
    case SIGN_IN:
        g_object_unref(d->auth);
        break;
    }
    d->kind = NONE;
    d->menu = NULL;
    d->dialog = NULL;
    d->auth = NULL;
    d->menu_close_handler = 0;
}

static void on_auth_cancelled(WebKitAuthenticationRequest *request, gpointer dialogs);

/* Our own cancel of a sign-in (not WebKit's: on_auth_cancelled is for those). */
static void cancel_sign_in(struct web_dialogs *d, WebKitAuthenticationRequest *request) {
    g_signal_handlers_disconnect_by_func(request, G_CALLBACK(on_auth_cancelled), d);
    webkit_authentication_request_cancel(request);
}

/* Takes what shows away (the compositor's too): something else needs the place. */
static void take_away(struct web_dialogs *d) {
    if (d->kind == NONE) return;
    dc_dismiss_presented(d->dc, d->id);
    if (d->kind == SIGN_IN) cancel_sign_in(d, d->auth);
    finish(d);
}

/* Whether a dialog blocks the page while it waits for the user (an alert, a prompt, a sign-in:
   the page draws nothing more until it is answered, so it is as settled as it gets). A menu
   does not block it: the page draws on (its focus ring) and settles as ever. */
int web_dialogs_showing(const struct web_dialogs *d) { return d->kind == DIALOG || d->kind == SIGN_IN; }

/* ---- <select> ---- */

/* After a choice, the <select> (in a frame of the same origin too) left unfocused: its focus
   ring goes, as on iPad. */
static const char *unfocus_select =
    "(function(){var d=document,e=d.activeElement;"
    "while(e&&(e.tagName==='IFRAME'||e.tagName==='FRAME')){try{if(!e.contentDocument)break;d=e.contentDocument;e=d.activeElement;}catch(x){break;}}"
    "if(e&&e.tagName==='SELECT')e.blur();})()";

static void on_menu_closed(WebKitOptionMenu *menu, gpointer dialogs) {
    struct web_dialogs *d = dialogs;
    /* WebKit closed it (the select went away): the compositor's goes too. */
    if (d->kind != MENU || d->menu != menu) return;
    g_signal_handler_disconnect(d->menu, d->menu_close_handler);
    d->menu_close_handler = 0;
    dc_dismiss_presented(d->dc, d->id);
    g_object_unref(d->menu);
    d->kind = NONE;
    d->menu = NULL;
}

int web_dialogs_option_menu(struct web_dialogs *d, WebKitWebView *webkit, WebKitOptionMenu *menu, const WebKitRectangle *rect,
                            double band_top) {
    take_away(d);
    guint n = webkit_option_menu_get_n_items(menu);
    if (n > DC_MENU_ITEMS_MAX) {
        say("a menu of %u options shows its first %d", n, DC_MENU_ITEMS_MAX);
        n = DC_MENU_ITEMS_MAX;
    }
    dc_menu_item *items = g_new0(dc_menu_item, n ? n : 1);
    char **labels = g_new0(char *, n + 1);
    for (guint i = 0; i < n; i++) {
        WebKitOptionMenuItem *item = webkit_option_menu_get_item(menu, i);
        const char *label = webkit_option_menu_item_get_label(item);
        /* Cut to 256 bytes at a character's start. */
        gchar *cut = g_strndup(label ? label : "", DC_LABEL_BYTES_MAX);
        if (!g_utf8_validate(cut, -1, NULL)) { const gchar *end; g_utf8_validate(cut, -1, &end); cut[end - cut] = 0; }
        labels[i] = cut;
        items[i].label = cut;
        items[i].flags = (webkit_option_menu_item_is_selected(item) ? DC_MENU_SELECTED : 0)
            | (webkit_option_menu_item_is_enabled(item) ? 0 : DC_MENU_DISABLED)
            | (webkit_option_menu_item_is_group_label(item) ? DC_MENU_HEADER : 0)
            | (webkit_option_menu_item_is_group_child(item) ? DC_MENU_INDENTED : 0);
    }
    /* WebKit's rectangle is in the page's CSS pixels (the pane's points), the view's top being
       below the band. */
    dc_rect anchor = { rect->x, (int32_t)lround(rect->y + band_top), rect->width, rect->height };
    if (anchor.width < 0) anchor.width = 0;
    if (anchor.height < 0) anchor.height = 0;
    d->id = d->next_id++;
    int r = dc_present_menu(d->dc, d->id, anchor, "", items, (int)n);
    g_strfreev(labels);
    g_free(items);
    if (r != 0) {
        say("a menu could not be shown: %s", dc_error(d->dc));
        return 0;
    }
    d->kind = MENU;
    d->menu = g_object_ref(menu);
    d->menu_view = webkit;
    d->menu_close_handler = g_signal_connect(menu, "close", G_CALLBACK(on_menu_closed), d);
    return 1;
}

/* ---- alert(), confirm(), prompt() ---- */

/* A URI's origin as the flood rule tells pages apart: scheme, host and port (a URI without a
   host, about:blank or data:, is its scheme alone). */
static char *origin_of(const char *uri) {
    GUri *u = uri ? g_uri_parse(uri, G_URI_FLAGS_ENCODED | G_URI_FLAGS_PARSE_RELAXED, NULL) : NULL;
    if (!u) return g_strdup("");
    char *origin = g_strdup_printf("%s://%s:%d", g_uri_get_scheme(u), g_uri_get_host(u) ? g_uri_get_host(u) : "", g_uri_get_port(u));
    g_uri_unref(u);
    return origin;
}

/* The page's origin now: the rule's count is kept per origin. */
static void note_origin(struct web_dialogs *d, const char *uri) {
    char *origin = origin_of(uri);
    if (d->origin && strcmp(origin, d->origin) == 0) {
        g_free(origin);
        return;
    }
    g_free(d->origin);
    d->origin = origin;
    memset(d->recent, 0, sizeof d->recent);
    d->silenced = d->said = 0;
}

/* Whether the flood rule lets another dialog (`kind`: alert, confirm, prompt, signIn) show now
   (and counts it); logged either way. */
static int may_show_dialog(struct web_dialogs *d, WebKitWebView *webkit, const char *kind) {
    note_origin(d, webkit ? webkit_web_view_get_uri(webkit) : NULL);
    gint64 now = g_get_monotonic_time();
    int may = !d->silenced;
    if (may && d->recent[0] && now - d->recent[0] < 10 * G_USEC_PER_SEC) {
        d->silenced = 1;
        may = 0;
        if (!d->said)
            say("the page opened more than three dialogs within 10 s: its dialogs return their default (a sign-in is cancelled) until it navigates, "
                "and on its own origin until 10 s after the first of them");
        d->said = 1;
    }
    if (may) {
        memmove(d->recent, d->recent + 1, sizeof d->recent - sizeof d->recent[0]);
        d->recent[2] = now;
    }
    GString *line = log_start("dialog");
    g_string_append(line, ",\"kind\":");
    json_string(line, kind);
    g_string_append_printf(line, ",\"shown\":%s", may ? "true" : "false");
    json_field(line, "ms", (double)(now / 1000));
    log_line(line);
    g_string_free(line, TRUE);
    return may;
}

/* A sign-in WebKit dropped before it was answered is not counted (it is asked again). */
static void uncount_last(struct web_dialogs *d) {
    memmove(d->recent + 1, d->recent, sizeof d->recent - sizeof d->recent[0]);
    d->recent[0] = 0;
}

/* Who asks, for an alert's title: the page's host (as Safari says it), else (a local page too)
   "This page". */
static char *asker(WebKitWebView *webkit) {
    const char *uri = webkit ? webkit_web_view_get_uri(webkit) : NULL;
    GUri *u = uri && !is_served_uri(uri) ? g_uri_parse(uri, G_URI_FLAGS_NONE, NULL) : NULL;
    const char *host = u ? g_uri_get_host(u) : NULL;
    char *title = host && *host ? g_strdup(host) : g_strdup("This page");
    if (u) g_uri_unref(u);
    return title;
}

int web_dialogs_script_dialog(struct web_dialogs *d, WebKitWebView *webkit, WebKitScriptDialog *dialog) {
    WebKitScriptDialogType type = webkit_script_dialog_get_dialog_type(dialog);
    if (web_debug) say("script dialog %d: %s", (int)type, webkit_script_dialog_get_message(dialog));
    if (type == WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM) {
        /* "Leave": a kiosk's navigation is never held up by the page. */
        webkit_script_dialog_confirm_set_confirmed(dialog, TRUE);
        return 0;
    }
    /* The default: an alert closed, confirm() false, prompt() null. */
    if (d->kind == DIALOG || d->kind == SIGN_IN) return 0;
    if (!may_show_dialog(d, webkit, type == WEBKIT_SCRIPT_DIALOG_ALERT ? "alert" : type == WEBKIT_SCRIPT_DIALOG_CONFIRM ? "confirm" : "prompt"))
        return 0;
    take_away(d);
    dc_alert_button buttons[2] = { { "Cancel", DC_BUTTON_STYLE_CANCEL }, { "OK", DC_BUTTON_STYLE_DEFAULT } };
    int prompt = type == WEBKIT_SCRIPT_DIALOG_PROMPT;
    const char *fallback = prompt ? webkit_script_dialog_prompt_get_default_text(dialog) : "";
    gchar *text = g_strndup(fallback ? fallback : "", DC_LABEL_BYTES_MAX);
    char *title = asker(webkit);
    d->id = d->next_id++;
    int r = dc_present_alert(d->dc, d->id, title, webkit_script_dialog_get_message(dialog), prompt ? DC_ALERT_FIELD_TEXT : DC_ALERT_FIELD_NONE,
                             "", g_utf8_validate(text, -1, NULL) ? text : "", type == WEBKIT_SCRIPT_DIALOG_ALERT ? buttons + 1 : buttons,
                             type == WEBKIT_SCRIPT_DIALOG_ALERT ? 1 : 2);
    g_free(title);
    g_free(text);
    if (r != 0) {
        say("a dialog could not be shown: %s", dc_error(d->dc));
        return 0;
    }
    d->kind = DIALOG;
    d->dialog = webkit_script_dialog_ref(dialog);
    return 1;
}

/* ---- HTTP authentication ---- */

/* WebKit gave up the request it asked to sign in for. Its load was replaced or stopped, or,
   under load, the challenge reached the view before the load's start did, and the view drops
   a pending sign-in when a load starts, finishing that load unsigned without asking again.
   The alert goes (a next challenge is asked for afresh, not refused behind a dead one), and if
   the load finishes without one the page is loaded again to be asked again (at most
   SIGN_IN_RETRIES times until a sign-in is given). */
static void on_auth_cancelled(WebKitAuthenticationRequest *request, gpointer dialogs) {
    struct web_dialogs *d = dialogs;
    if (d->kind != SIGN_IN || d->auth != request) return;
    if (web_debug) say("the sign-in was cancelled by WebKit");
    dc_dismiss_presented(d->dc, d->id);
    finish(d);
    uncount_last(d);
    d->ask_again = d->asked_again < SIGN_IN_RETRIES;
    web_hook_call(&d->stir);
}

int web_dialogs_sign_in_again(struct web_dialogs *d) {
    if (!d->ask_again || d->kind != NONE) return 0;
    d->ask_again = 0;
    d->asked_again++;
    return 1;
}

int web_dialogs_authenticate(struct web_dialogs *d, WebKitWebView *webkit, WebKitAuthenticationRequest *request) {
    if (d->kind == DIALOG || d->kind == SIGN_IN) return -1;  /* (cancelled by WebKit) */
    /* Past the flood rule: cancelled (the load goes on unsigned, as if the user cancelled). */
    if (!may_show_dialog(d, webkit, "signIn")) {
        webkit_authentication_request_cancel(request);
        return 0;
    }
    take_away(d);
    char *message = g_strdup_printf("Sign in to %s%s%s", webkit_authentication_request_get_host(request),
                                    webkit_authentication_request_get_realm(request) && *webkit_authentication_request_get_realm(request) ? ": " : "",
                                    webkit_authentication_request_get_realm(request) ? webkit_authentication_request_get_realm(request) : "");
    /* Two fields do not fit one alert: the user name, then the password. */
    dc_alert_button buttons[2] = { { "Cancel", DC_BUTTON_STYLE_CANCEL }, { "Next", DC_BUTTON_STYLE_DEFAULT } };
    d->id = d->next_id++;
    int r = dc_present_alert(d->dc, d->id, "Sign In", message, DC_ALERT_FIELD_TEXT, "User name", "", buttons, 2);
    g_free(message);
    if (r != 0) {
        uncount_last(d);
        return -1;
    }
    d->kind = SIGN_IN;
    d->auth = g_object_ref(request);
    g_signal_connect(request, "cancelled", G_CALLBACK(on_auth_cancelled), d);
    g_object_set_data_full(G_OBJECT(request), "diptych-user", NULL, g_free);
    return 1;
}

static void sign_in_answered(struct web_dialogs *d, uint32_t button, const char *text) {
    WebKitAuthenticationRequest *request = d->auth;
    const char *user = g_object_get_data(G_OBJECT(request), "diptych-user");
    if (button == 0) {
        cancel_sign_in(d, request);
        finish(d);
        return;
    }
    if (!user) {
        /* The user name given: now the password. */
        g_object_set_data_full(G_OBJECT(request), "diptych-user", g_strdup(text), g_free);
        dc_alert_button buttons[2] = { { "Cancel", DC_BUTTON_STYLE_CANCEL }, { "Sign In", DC_BUTTON_STYLE_DEFAULT } };
        d->id = d->next_id++;
        char *message = g_strdup_printf("The password for %s", text);
        int r = dc_present_alert(d->dc, d->id, "Sign In", message, DC_ALERT_FIELD_SECURE, "Password", "", buttons, 2);
        g_free(message);
        if (r == 0) return;
        cancel_sign_in(d, request);
        finish(d);
        return;
    }
    g_signal_handlers_disconnect_by_func(request, G_CALLBACK(on_auth_cancelled), d);
    d->ask_again = d->asked_again = 0;
    WebKitCredential *credential = webkit_credential_new(user, text, WEBKIT_CREDENTIAL_PERSISTENCE_FOR_SESSION);
    webkit_authentication_request_authenticate(request, credential);
    webkit_credential_free(credential);
    finish(d);
}

/* ---- the compositor's answers ---- */

int web_dialogs_event(struct web_dialogs *d, const dc_event *e) {
    uint32_t id = e->type == DC_MENU_CHOSEN ? e->menu_chosen.id : e->type == DC_ALERT_ANSWERED ? e->alert_answered.id
        : e->type == DC_DISMISSED ? e->dismissed.id : d->id;
    if (e->type == DC_REFUSED) {
        if (strcmp(e->refused.request, "presentMenu") != 0 && strcmp(e->refused.request, "presentAlert") != 0) return 0;
        say("the compositor would not show the page's %s (%s): it gets its default", d->kind == MENU ? "menu" : "dialog", e->refused.reason);
    }
    if (d->kind == NONE || id != d->id) return 0;
    /* A menu answered: its <select> blurred once WebKit has the choice and the menu closed. */
    WebKitWebView *unfocus = d->kind == MENU && (e->type == DC_MENU_CHOSEN || e->type == DC_DISMISSED) ? d->menu_view : NULL;
    switch (e->type) {
    case DC_MENU_CHOSEN:
        if (d->kind == MENU) webkit_option_menu_activate_item(d->menu, e->menu_chosen.index);
        break;
    case DC_ALERT_ANSWERED:
        if (d->kind == SIGN_IN) {
            sign_in_answered(d, e->alert_answered.button, e->alert_answered.text);
            return 0;
        }
        if (d->kind != DIALOG || e->alert_answered.button != 1) break;
        if (webkit_script_dialog_get_dialog_type(d->dialog) == WEBKIT_SCRIPT_DIALOG_CONFIRM) webkit_script_dialog_confirm_set_confirmed(d->dialog, TRUE);
        if (webkit_script_dialog_get_dialog_type(d->dialog) == WEBKIT_SCRIPT_DIALOG_PROMPT) webkit_script_dialog_prompt_set_text(d->dialog, e->alert_answered.text);
        break;
    default:
        if (d->kind == SIGN_IN) cancel_sign_in(d, d->auth);
        break;
    }
    finish(d);
    if (unfocus) webkit_web_view_run_javascript_in_world(unfocus, unfocus_select, SCRIPT_WORLD, NULL, NULL, NULL);
    return 1;
}

/* A navigation ends the flood rule's hold; the count goes too unless the page stays on its
   origin (then a dialog shows again once the first of the last three is 10 s old). What shows
   goes with the page. */
void web_dialogs_navigated(struct web_dialogs *d, const char *uri) {
    note_origin(d, uri);
    d->silenced = 0;
    if (d->kind == MENU) take_away(d);
}
