// `radiant`: one executable, one subcommand per job (DESIGN §1).
// Exit codes: 0 success, 2 bad input or usage (one line naming the file and the problem),
// 1 internal error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app/commands.h"
#include "core/error.h"
#include "nn/simd.h"

int main(int argc, char** argv) {
    if (const radiant::SimdTargetOverride simd = radiant::apply_simd_target_override();
        simd.result == radiant::SimdTargetOverride::Result::kUnknown ||
        simd.result == radiant::SimdTargetOverride::Result::kUnsupportedByCpu) {
        std::fprintf(stderr, "radiant: error: %s\n", simd.message.c_str());
        return 2;
    }
    CLI::App app{
        "Radiant: neural radiance fields and neural graphics primitives, fast on the CPU."};
    app.require_subcommand(1);
    app.set_version_flag("--version", "radiant 0.1.0");
    std::vector<radiant::Command> commands = {
        radiant::add_demo_command(app),        radiant::add_prepare_command(app),
        radiant::add_train_command(app),       radiant::add_eval_command(app),
        radiant::add_render_command(app),      radiant::add_view_command(app),
        radiant::add_export_mesh_command(app), radiant::add_export_points_command(app),
        radiant::add_plot_command(app),        radiant::add_fit_image_command(app),
    };

    if (argc > 1 && argv[1][0] != '-') {
        bool known = false;
        std::string names;
        for (const auto& c : commands) {
            known |= c.subcommand->get_name() == argv[1];
            names += (names.empty() ? "" : ", ") + c.subcommand->get_name();
        }
        if (!known) {
            std::fprintf(stderr, "radiant: unknown command '%s' (commands: %s)\n", argv[1],
                         names.c_str());
            return 2;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "radiant: %s\nRun 'radiant --help' or 'radiant COMMAND --help'.\n",
                     e.what());
        return 2;
    }
    try {
        for (auto& c : commands)
            if (c.subcommand->parsed()) return c.run();
        return 2;
    } catch (const radiant::Error& e) {
        std::fprintf(stderr, "\nradiant: error: %s\n", e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "\nradiant: error: out of memory\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "\nradiant: internal error: %s\n", e.what());
        return 1;
    }
}
