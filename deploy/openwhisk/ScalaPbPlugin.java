// deploy/openwhisk/ScalaPbPlugin.java: a protoc plugin that runs ScalaPB's message generator, the part of Pekko
// gRPC's Gradle build (pekko-grpc-scalapb-protoc-plugin) that this machine's registry does not serve. protoc
// writes a CodeGeneratorRequest to stdin and reads the CodeGeneratorResponse from stdout; ScalaPB's generator,
// inside pekko-grpc-codegen's assembly jar, turns one into the other. deploy/openwhisk/build.sh compiles and runs it.
public final class ScalaPbPlugin {
    private ScalaPbPlugin() {}

    // The generator is reached by reflection: javac cannot read the assembly jar (a shell script precedes its zip
    // entries), the JVM's class loader can.
    public static void main(String[] args) throws Exception {
        byte[] request = System.in.readAllBytes();
        Class<?> generator = Class.forName("scalapb.ScalaPbCodeGenerator$");
        Object module = generator.getField("MODULE$").get(null);
        byte[] response = (byte[]) generator.getMethod("run", byte[].class).invoke(module, (Object) request);
        System.out.write(response);
        System.out.flush();
    }
}
